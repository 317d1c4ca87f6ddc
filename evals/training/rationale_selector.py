"""Fit the rationale selector (agent/judge/rationale.py) on SciFact train rationales, and compare it on dev with the
similarity shortlist it replaces.

    python -m evals.training.rationale_selector

* The shortlist (no model call) is fitted on every sentence of every evidence abstract of the train claims the
  verifier was trained on: its features need no verifier, so the verifier's familiarity with those claims does not
  leak into it.
* The pick (the shortlist's score and the verifier's reading) and ``second_min`` are fitted on the held-out train
  claims (evals/training/data.split_heldout, 15 %, seed 13: claims the verifier never trained on), on the sentences
  the shortlist passes to the verifier, as the product reads them. ``second_min`` is the threshold with the best
  held-out sentence-level F1.
* Dev is read, never fitted on: per evidence abstract, whether a whole gold rationale set is among the sentences
  shown, and sentence-level precision / recall / F1 on those abstracts, for the selector and for the similarity
  shortlist with the verifier's strongest reading (what the product did before).

Writes ``agent/judge/rationale_selector.json`` and ``evals/results/rationale_selector.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from agent.judge.calibration import logit
from evals.experiments import git_commit
from evals.training.data import Claim, Doc, load_data, split_heldout
from evals.training.judge_calibration import fit_logistic

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO.parent / "shared" / "data" / "scifact"
OUT = REPO / "agent" / "judge" / "rationale_selector.json"
REPORT = REPO / "evals" / "results" / "rationale_selector.md"


@dataclass
class Read:
    """One evidence abstract of one claim, as the selector reads it."""

    claim: str
    sentences: list[str]
    sims: list[float]
    gold_sets: list[list[int]]
    verifier: list[tuple[float, float, float]]  # (P(supports), P(contradicts), P(nei)) per sentence; empty: not read


def reads(claims: Sequence[Claim], corpus: dict[int, Doc], deps: Any, with_verifier: bool) -> list[Read]:
    from tools.text.premise import before, premise, where

    out = []
    for claim in claims:
        claim_vec = deps.index.embed([claim.text])[0]
        for doc_id, sets in claim.evidence.items():
            doc = corpus[doc_id]
            vectors = deps.index.sentence_vectors([str(doc_id)])[str(doc_id)]
            verifier: list[tuple[float, float, float]] = []
            if with_verifier:
                chars = deps.settings.judge.context_chars
                premises = [
                    premise(doc.title, s, place=where(doc.sents, i), context=before(doc.sents, i, chars))
                    for i, s in enumerate(doc.sents)
                ]
                verifier = [
                    (r.p_supports, r.p_contradicts, r.p_nei)
                    for r in deps.verifier.predict([(claim.text, p) for p in premises])
                ]
            out.append(
                Read(claim.text, doc.sents, [float(x) for x in vectors @ claim_vec], [s for s, _ in sets], verifier)
            )
    return out


def shortlist_data(rows: Sequence[Read], min_chars: int) -> tuple[np.ndarray, np.ndarray]:
    from agent.judge.rationale import sentence_features

    x, y = [], []
    for r in rows:
        idx = [i for i, s in enumerate(r.sentences) if len(s) >= min_chars]
        gold = {i for s in r.gold_sets for i in s}
        x += sentence_features(r.claim, r.sentences, r.sims, idx)
        y += [int(i in gold) for i in idx]
    return np.array(x), np.array(y)


Shown = Callable[[Read], list[int]]


def selector_shown(selector: Any, k: int, n: int, min_chars: int) -> Shown:
    """The sentences the product shows of one abstract: the shortlist's top ``k``, picked with the verifier."""

    def shown(r: Read) -> list[int]:
        shortlist = selector.shortlist(r.claim, r.sentences, r.sims, k, min_chars)
        probs = [selector.p_rationale(score, *r.verifier[i]) for i, score in shortlist]
        return [shortlist[j][0] for j in selector.shown(probs, n)]

    return shown


def similarity_shown(k: int, n: int, min_chars: int) -> Shown:
    """The similarity shortlist with the verifier's strongest reading: the sentences it labels bearing, strongest
    first, else its strongest one."""

    def shown(r: Read) -> list[int]:
        idx = sorted((i for i, s in enumerate(r.sentences) if len(s) >= min_chars), key=lambda i: -r.sims[i])[:k]
        strongest = sorted(idx, key=lambda i: r.verifier[i][2])
        bearing = [i for i in strongest if max(r.verifier[i]) != r.verifier[i][2]]
        return (bearing or strongest[:1])[:n]

    return shown


def selection(rows: Sequence[Read], shown: Shown) -> dict[str, float]:
    """Per evidence abstract: the share with a whole gold rationale set shown, and sentence-level P/R/F1 (a shown
    sentence is right when its whole rationale set is shown, as in SciFact's Selection metric)."""
    covered = right = retrieved = relevant = 0
    for r in rows:
        picked = set(shown(r))
        whole = [s for s in r.gold_sets if set(s) <= picked]
        covered += bool(whole)
        right += sum(len(s) for s in whole)
        retrieved += len(picked)
        relevant += sum(len(s) for s in r.gold_sets)
    p, rec = right / max(retrieved, 1), right / max(relevant, 1)
    return {
        "abstracts": len(rows),
        "rationale_shown": round(covered / max(len(rows), 1), 3),
        "precision": round(p, 3),
        "recall": round(rec, 3),
        "f1": round(2 * p * rec / (p + rec), 3) if p + rec else 0.0,
        "sentences_per_abstract": round(retrieved / max(len(rows), 1), 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=DATA_DIR)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--report", type=Path, default=REPORT)
    args = p.parse_args(argv)

    from agent.judge.rationale import FEATURES, RationaleSelector
    from agent.service import load_deps
    from agent.settings.app import get_settings

    deps = load_deps(get_settings().with_values(live={"sources": "local"}))
    judge = deps.settings.judge
    k, n, min_chars = judge.candidates_per_doc, judge.sentences_per_doc, judge.min_sentence_chars
    corpus, train, dev = load_data(args.data_dir)
    fit_claims, heldout = split_heldout(train, 0.15, 13)
    print("reading train, held-out and dev evidence abstracts", flush=True)
    fit_rows = reads(fit_claims, corpus, deps, with_verifier=False)
    held_rows = reads(heldout, corpus, deps, with_verifier=True)
    dev_rows = reads(dev, corpus, deps, with_verifier=True)

    x, y = shortlist_data(fit_rows, min_chars)
    shortlist = fit_logistic(x, y, c=1.0)
    with_shortlist = RationaleSelector(shortlist_weights=shortlist)
    px, py = [], []
    for r in held_rows:
        gold = {i for s in r.gold_sets for i in s}
        for i, score in with_shortlist.shortlist(r.claim, r.sentences, r.sims, k, min_chars):
            ps, pc, pn = r.verifier[i]
            px.append([score, logit(1.0 - pn), abs(ps - pc)])
            py.append(int(i in gold))
    pick = fit_logistic(np.array(px), np.array(py), c=1.0)
    trials = []
    for t in [round(float(t), 2) for t in np.linspace(0.0, 0.9, 19)]:
        sel = RationaleSelector(shortlist, pick, t)
        trials.append({"second_min": t, **selection(held_rows, selector_shown(sel, k, n, min_chars))})
    best = max(trials, key=lambda t: (t["f1"], t["precision"]))
    selector = RationaleSelector(shortlist, pick, best["second_min"])

    compared = {
        "similarity shortlist, verifier's strongest (before)": similarity_shown(k, n, min_chars),
        "rationale selector (shipped)": selector_shown(selector, k, n, min_chars),
        "rationale selector, first sentence only": selector_shown(selector, k, 1, min_chars),
    }
    table = {name: {"held-out": selection(held_rows, f), "dev": selection(dev_rows, f)} for name, f in compared.items()}
    out = {
        "shortlist_weights": [round(w, 4) for w in shortlist],
        "pick_weights": [round(w, 4) for w in pick],
        "second_min": best["second_min"],
        "features": list(FEATURES),
        "fitted_on": {
            "shortlist": f"{len(fit_rows)} evidence abstracts ({len(y)} sentences, {int(y.sum())} rationale) of "
            f"{len(fit_claims)} SciFact train claims",
            "pick": f"{len(held_rows)} evidence abstracts ({len(py)} shortlisted sentences) of {len(heldout)} held-out "
            "SciFact train claims",
        },
        "commit": git_commit(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
    }
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    lines = [
        "# The rationale selector against the similarity shortlist",
        "",
        "Command: `python -m evals.training.rationale_selector` (fits `agent/judge/rationale_selector.json`, "
        "reads dev).",
        f"Commit {out['commit']}, {out['date']}. Candidates per abstract {k}, sentences shown at most {n}.",
        "",
        "Per SciFact evidence abstract (the papers the annotators cite): *rationale shown* = a whole gold",
        "rationale set is among the sentences shown; P / R / F1 are sentence-level on those abstracts (a shown",
        "sentence is right when its whole rationale set is shown, as in SciFact's Selection metric). The shortlist",
        "is fitted on train claims, the pick and `second_min` on held-out train claims; dev is only read.",
        "",
        "| selection | split | abstracts | rationale shown | P | R | F1 | sentences shown per abstract |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, splits in table.items():
        for split, m in splits.items():
            lines.append(
                f"| {name} | {split} | {m['abstracts']} | {m['rationale_shown']} | {m['precision']} | {m['recall']} | "
                f"{m['f1']} | {m['sentences_per_abstract']} |"
            )
    lines += [
        "",
        "`second_min` trials on held-out (F1 chooses):",
        "",
        "| second_min | P | R | F1 | shown |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {t['second_min']} | {t['precision']} | {t['recall']} | {t['f1']} | {t['sentences_per_abstract']} |"
        for t in trials
    ]
    lines += ["", "Weights (`agent/judge/rationale_selector.json`):", "", "```json", json.dumps(out, indent=2), "```",
              ""]
    args.report.write_text("\n".join(lines))
    print("\n".join(lines[9:16]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
