"""Fits and measures the claim matcher (agent.earlier.relation) on the labelled pairs (claim_matching/pairs.jsonl).

    python -m evals.claim_matching.fit [--write] [--cached]

Each pair is read as the product reads a kept claim against a new one: the embedder's cosine similarity (the
candidate filter), the claim verifier's readings (P(same), P(opposite)) and the LLM's P(same) in both orders (the
product asks it only where the verifier is unsure; here every pair without a reversing word is asked, so that the
thresholds can move). The verifier's thresholds are chosen on the ``fit`` split (SciFact train claims and text
written for the purpose) only, among those that show no opposite as "same": the best F0.5 of "same", then of
"opposite" (precision counts twice as much as recall; near ties go to the more cautious threshold). The LLM's are
then the ones that find the most same claims on the fit split with no opposite shown as "same" and the precision of
"same" not below the verifier's alone (ties go to the more cautious). The ``report`` split (SciFact dev claim texts,
never their verdicts) is only measured.
``--write`` keeps the thresholds in agent/earlier/relation.json. The report goes to
evals/results/claim_matching/README.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from agent.earlier.relation import THRESHOLDS_FILE, PairReading, Thresholds, ask_llm, llm_same, read_pairs
from evals.claim_matching.pairs import Pair, load_pairs
from evals.experiments import git_commit

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "evals" / "results" / "claim_matching"
LABELS = ("same", "opposite", "related")
GRID = [round(x, 2) for x in (*np.arange(0.3, 0.9, 0.05), 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98)]
CANDIDATE_GRID = (0.3, 0.4, 0.5, 0.6)
LLM_GRID = [round(x, 2) for x in np.arange(0.5, 0.96, 0.05)]
LLM_OPPOSITE_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
NOISE = 0.01  # F0.5 differences smaller than this are ties


def readings(
    pairs: Sequence[Pair], no_llm: bool = False, asked_where: Thresholds | None = None
) -> list[tuple[float, PairReading]]:
    """(cosine similarity, the verifier's and the LLM's reading) of each pair, as agent.earlier reads a kept claim:
    the LLM asked about every pair without a reversing word, or with ``asked_where`` only where those thresholds ask
    it (the product's reading)."""
    from agent.llm.client import make_chat_model
    from agent.settings.app import get_settings
    from tools.models.embedder import get_embedder
    from tools.models.verifier import get_verifier

    emb = get_embedder()
    a = emb.encode([p.a for p in pairs])
    b = emb.encode([p.b for p in pairs])
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    verifier = get_verifier()
    llm = None if no_llm else make_chat_model(get_settings())
    out = []
    for c, p in zip(cos, pairs, strict=True):
        r = read_pairs(verifier, p.b, [p.a])[0]
        if asked_where is not None:
            r = ask_llm(llm, p.b, [p.a], [r], asked_where)[0]  # the product's own step
        elif llm is not None and r.reversal is None:
            r = replace(r, llm_same=llm_same(llm, p.b, p.a))
        out.append((float(c), r))
    return out


def cached(pairs: Sequence[Pair]) -> list[tuple[float, PairReading]]:
    """The readings of the last run, in the pairs' order (the set must be the one they were read from)."""
    rows = [json.loads(line) for line in (OUT / "readings.jsonl").read_text().splitlines()]
    if [(r["split"], r["label"]) for r in rows] != [(q.split, q.label) for q in pairs]:
        raise SystemExit("readings.jsonl was read from another set of pairs: run without --cached")
    return [(r["cosine"], PairReading(r["p_same"], r["p_opposite"], r["reversal"], r.get("llm_same"))) for r in rows]


def predict(read: tuple[float, PairReading], t: Thresholds) -> str:
    cos, r = read
    return r.relation(t) if cos >= t.candidates_from else "not a candidate"


def table(pairs: Sequence[Pair], reads: Sequence[tuple[float, PairReading]], t: Thresholds) -> dict[str, Any]:
    """Confusion counts (gold -> shown as) and each match kind's precision and recall."""
    conf = Counter((p.label, predict(r, t)) for p, r in zip(pairs, reads, strict=True))
    out: dict[str, Any] = {"pairs": len(pairs), "confusion": {f"{g} -> {s}": n for (g, s), n in sorted(conf.items())}}
    for kind in ("same", "opposite"):
        shown = sum(n for (_, s), n in conf.items() if s == kind)
        right = conf[(kind, kind)]
        gold = sum(n for (g, _), n in conf.items() if g == kind)
        out[kind] = {"shown": shown, "right": right, "gold": gold,
                     "precision": round(right / shown, 4) if shown else None, "recall": round(right / gold, 4)}
    out["opposite_shown_as_same"] = conf[("opposite", "same")]
    return out


def f_beta(precision: float | None, recall: float, beta: float) -> float:
    p = precision or 0.0
    return (1 + beta**2) * p * recall / (beta**2 * p + recall) if p + recall else 0.0


def choose(pairs: Sequence[Pair], reads: Sequence[tuple[float, PairReading]]) -> Thresholds:
    """The fit split's thresholds among those that show no opposite as "same": the best F0.5 of "same", then of
    "opposite" (precision weighs twice as much as recall: a false "same" shows another claim's verdict as this
    one's, a false "opposite" mirrors it). F0.5 figures within NOISE of the best are ties (one pair of the fit split
    moves them about that much), and a tie goes to the more cautious threshold, then to the lower candidate filter
    (more pairs read)."""
    tried = []
    for c in CANDIDATE_GRID:
        for s in GRID:
            for o in GRID:
                t = Thresholds(s, o, c)
                tab = table(pairs, reads, t)
                if not tab["opposite_shown_as_same"]:
                    tried.append((t, f_beta(tab["same"]["precision"], tab["same"]["recall"], 0.5),
                                  f_beta(tab["opposite"]["precision"], tab["opposite"]["recall"], 0.5)))
    if not tried:
        raise SystemExit("every threshold shows an opposite as the same claim on the fit split")
    best_same = max(f for _, f, _ in tried)
    same = max((t.same_from for t, f, _ in tried if f >= best_same - NOISE))
    kept = [(t, fo) for t, f, fo in tried if t.same_from == same and f >= best_same - NOISE]
    best_opp = max(fo for _, fo in kept)
    return max((t for t, fo in kept if fo >= best_opp - NOISE), key=lambda t: (t.opposite_from, -t.candidates_from))


def choose_llm(pairs: Sequence[Pair], reads: Sequence[tuple[float, PairReading]], t: Thresholds) -> Thresholds:
    """``t`` with the LLM's thresholds that find the most same claims on the fit split, showing no opposite as
    "same" and keeping the precision of "same" at least the verifier's alone; ties go to the more cautious (the
    higher P(same), then the lower P(opposite)). ``t`` as it is when none finds more."""
    alone = table(pairs, reads, t)["same"]
    best, found = t, alone["right"]
    for s in sorted(LLM_GRID, reverse=True):
        for o in LLM_OPPOSITE_GRID:
            tried = replace(t, llm_same_from=s, llm_opposite_below=o)
            tab = table(pairs, reads, tried)
            same = tab["same"]
            if (not tab["opposite_shown_as_same"] and same["right"] > found
                    and (same["precision"] or 0.0) >= (alone["precision"] or 0.0)):
                best, found = tried, same["right"]
    return best


def report(fit: dict[str, Any], rep: dict[str, Any], t: Thresholds, counts: dict[str, dict[str, int]],
           command: str, alone: tuple[dict[str, Any], dict[str, Any]]) -> str:
    def rows(tab: dict[str, Any]) -> str:
        return "\n".join(f"| {k} | {v} |" for k, v in tab["confusion"].items())

    def line(name: str, tab: dict[str, Any]) -> str:
        s, o = tab["same"], tab["opposite"]
        return (f"| {name} | {tab['pairs']} | {s['precision']} | {s['recall']} | {o['precision']} | {o['recall']} | "
                f"{tab['opposite_shown_as_same']} |")

    return f"""# Claim matching: the same claim, its opposite, or related only

Command: `{command}` (commit {git_commit()}). Pairs: `evals/claim_matching/pairs.jsonl`
({json.dumps(counts)}). Thresholds chosen on the fit split only: {json.dumps(asdict(t))}.

What the product aims at: of the pairs shown as the same claim, at least 0.95 are; at least 0.80 of the same claims
are found; no opposite is shown as the same claim.

| split | pairs | same: precision | same: recall | opposite: precision | opposite: recall | opposites shown as same |
|---|---:|---:|---:|---:|---:|---:|
{line("fit (tuned on)", fit)}
{line("report (measured only)", rep)}
{line("fit, the verifier alone (no LLM)", alone[0])}
{line("report, the verifier alone (no LLM)", alone[1])}

Report split, gold -> shown as ("not a candidate": below the embedding filter, never read):

| gold -> shown | pairs |
|---|---:|
{rows(rep)}
"""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--write", action="store_true", help="keep the thresholds in agent/earlier/relation.json")
    p.add_argument("--cached", action="store_true", help="fit on the readings the last run wrote (readings.jsonl)")
    p.add_argument("--no-llm", action="store_true", help="read with the verifier alone (the LLM's thresholds stay off)")
    args = p.parse_args(argv)
    pairs = load_pairs()
    reads = cached(pairs) if args.cached else readings(pairs, args.no_llm)
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "readings.jsonl").open("w") as f:
        for q, (cos, r) in zip(pairs, reads, strict=True):
            f.write(json.dumps({"split": q.split, "label": q.label, "how": q.how, "cosine": round(cos, 4),
                                "p_same": r.same, "p_opposite": r.opposite, "reversal": r.reversal,
                                "llm_same": r.llm_same}) + "\n")
    fit = [(q, r) for q, r in zip(pairs, reads, strict=True) if q.split == "fit"]
    rep = [(q, r) for q, r in zip(pairs, reads, strict=True) if q.split == "report"]
    alone_t = choose([q for q, _ in fit], [r for _, r in fit])
    t = choose_llm([q for q, _ in fit], [r for _, r in fit], alone_t)
    fit_tab = table([q for q, _ in fit], [r for _, r in fit], t)
    rep_tab = table([q for q, _ in rep], [r for _, r in rep], t)
    alone = (table([q for q, _ in fit], [r for _, r in fit], alone_t),
             table([q for q, _ in rep], [r for _, r in rep], alone_t))
    counts = {s: dict(Counter(q.label for q in pairs if q.split == s)) for s in ("fit", "report")}
    OUT.mkdir(parents=True, exist_ok=True)
    command = " ".join(["python -m evals.claim_matching.fit", *(argv if argv is not None else sys.argv[1:])])
    (OUT / "README.md").write_text(report(fit_tab, rep_tab, t, counts, command, alone))
    print(json.dumps({"thresholds": asdict(t), "fit": fit_tab, "report": rep_tab}, indent=1))
    if args.write:
        THRESHOLDS_FILE.write_text(json.dumps(asdict(t), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
