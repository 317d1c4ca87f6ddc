"""Where do the settled SciFact dev claims the verdict misses lose their evidence, and would the LLM's direction
reading or a null-finding phrase rule help the gate keep it?

    python -m evals.studies.missed_claims [--run evals/results/opposite_gate_15s] [--out evals/results]

Three readings, no LLM asked:

* SciFact dev, the committed run of the shipped judge (``--run``): for every claim the corpus settles, its verdict's
  side and where its gold papers went: not among the papers read, set aside by the verifier, set aside by the LLM's
  gate (and how many of those within 0.1 of the gate's threshold), not read for lack of time, or counted. Reported,
  never fitted.
* The held-out replay (evals/training/bearing_replay.py, with the opposite's P(Yes) of evals/studies/in_context.py):
  the gate's AUC for SciFact evidence, contradicting and supporting apart, out of fold (five folds of claims) with
  the shipped inputs (the verifier's strongest 1 - P(nei), the higher of the claim's and the opposite's P(Yes)) and
  with the strength of the LLM's direction reading (|logit P(claim)|) as a third input.
* The same replay: how many evidence abstracts, by side, and how many others have a null-finding phrase ("no
  significant difference", "not associated", "did not", ...) in the sentences the LLM reads.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agent.judge.calibration import load_calibration, logit
from agent.judge.scoring import verdict_sign
from agent.nodes.direction import CLOSE_TO_THE_GATE
from evals.experiments import REPO_ROOT, git_commit
from evals.scifact.claim_level import SIGN, scifact_class
from evals.studies.replay_folds import FOLDS, side_aucs
from evals.training.bearing_replay import read_replay

RUN = REPO_ROOT / "evals" / "results" / "opposite_gate_15s"
CLAIMS = REPO_ROOT.parent / "shared" / "data" / "scifact" / "claims_dev.jsonl"
OPPOSITE = REPO_ROOT / "evals" / "results" / "in_context" / "shown_opposite.jsonl"
NULL_FINDING = re.compile(
    r"\b(no (significant |statistically significant )?(difference|association|effect|change|relationship|correlation"
    r"|increase|decrease|benefit|improvement)s?|not (significantly )?(associated|related|correlated|different|affect"
    r"|alter|change|improve|reduce|increase)|did not|does not|was not|were not|failed to)\b",
    re.IGNORECASE,
)


def where_gold_went(record: dict[str, Any], gold: set[str], threshold: float) -> str:
    """What became of a claim's gold papers, the furthest any of them got: counted, unread, set aside by the LLM's
    gate (close to its threshold or not), set aside by the verifier, or not read at all."""
    result = record["result"]
    if gold & {a["doc_id"] for a in result["assessments"]}:
        return "counted"
    silent = [s for s in result["silent"] if s["doc_id"] in gold]
    if any(s.get("unread") for s in silent):
        return "not read for lack of time"
    gated = [s for s in silent if not s["reason"].startswith("The verifier")]
    if gated:
        close = max(s["bearing"] for s in gated) >= threshold - CLOSE_TO_THE_GATE
        return "set aside by the LLM's gate, close" if close else "set aside by the LLM's gate"
    return "set aside by the verifier" if silent else "not among the papers read"


def dev_table(run: Path) -> dict[str, Any]:
    threshold = load_calibration().gate_threshold
    claims = {c["id"]: c for c in map(json.loads, CLAIMS.read_text().splitlines())}
    counts: Counter[tuple[str, str, str]] = Counter()
    with gzip.open(run / "scifact_dev_judgement.predictions.jsonl.gz", "rt") as f:
        for line in f:
            record = json.loads(line)
            claim = claims[record["id"]]
            gold = scifact_class(claim)
            if gold not in ("SUPPORT", "CONTRADICT"):
                continue
            side = verdict_sign(record["result"]["verdict"]["label"])
            outcome = "right" if side == SIGN[gold] else ("none" if side == 0 else "wrong")
            counts[("supported" if gold == "SUPPORT" else "refuted", outcome,
                    where_gold_went(record, set(claim["evidence"]), threshold))] += 1  # fmt: skip
    return {"threshold": threshold, "rows": [[*k, n] for k, n in sorted(counts.items())]}


def score_of(d: Mapping[str, Any]) -> float:
    return float(d["score"])


def heldout(replay: list[dict[str, Any]]) -> dict[str, Any]:
    from evals.training.judge_calibration import apply, fit_logistic

    opposite = {a["pair"]: a for a in map(json.loads, OPPOSITE.read_text().splitlines())}
    docs = []
    for k, row in enumerate(replay):
        for d in row["docs"]:
            opp = opposite[f"{row['claim']}:{d['doc_id']}"]["p_shown_bears_opposite"]
            docs.append({**d, "fold": k % FOLDS, "x": [logit(d["bearing"]), logit(max(d["llm_p_bears"], opp)),
                                                       abs(logit(d["llm_p_claim"]))]})  # fmt: skip
    gold = np.array([d["gold"] is not None for d in docs])
    x = np.array([d["x"] for d in docs])
    fold = np.array([d["fold"] for d in docs])
    aucs = {}
    for name, cols in (("shipped inputs", [0, 1]), ("with the direction's strength", [0, 1, 2])):
        score = np.zeros(len(docs))
        for k in range(FOLDS):
            score[fold == k] = apply(fit_logistic(x[fold != k][:, cols], gold[fold != k]), x[fold == k][:, cols])
        scored = [{**d, "score": float(v)} for d, v in zip(docs, score, strict=True)]
        aucs[name] = side_aucs(scored, score_of)
    phrases = Counter(
        ({None: "not evidence", 0: "supporting evidence", 1: "contradicting evidence"}[d["gold"]],
         bool(NULL_FINDING.search(" ".join(text for _, text in d["sentences"]))))
        for d in docs
    )  # fmt: skip
    return {"abstracts": len(docs), "aucs": aucs, "null_phrase": [[*k, n] for k, n in sorted(phrases.items())]}


def markdown(res: dict[str, Any]) -> str:
    lines = [
        "# Where the missed claims lose their evidence", "",
        f"`{res['command']}` — {res['date']}, commit {res['commit']}. No LLM asked; nothing fitted on dev.", "",
        f"## SciFact dev: the shipped judge's run (`{res['run']}`)", "",
        f"Each settled claim by its verdict's side, and what became of its gold papers (the furthest any got). "
        f"\"Close\": within {CLOSE_TO_THE_GATE} of the gate's threshold ({res['dev']['threshold']}).", "",
        "| gold | verdict's side | gold papers | claims |", "|---|---|---|---:|",
    ]  # fmt: skip
    lines += [f"| {g} | {o} | {w} | {n} |" for g, o, w, n in res["dev"]["rows"]]
    h = res["heldout"]
    lines += ["", f"## Held-out replay ({h['abstracts']} abstracts of 122 held-out train claims)", "",
              "The gate's AUC out of fold (five folds of claims):", "",
              "| gate inputs | evidence | contradicting | supporting |", "|---|---:|---:|---:|"]  # fmt: skip
    lines += [f"| {name} | {a['evidence']} | {a['contradicting']} | {a['supporting']} |"
              for name, a in h["aucs"].items()]  # fmt: skip
    lines += ["", "A null-finding phrase in the sentences the LLM reads:", "",
              "| abstracts | with the phrase | without |", "|---|---:|---:|"]  # fmt: skip
    by = {(k, has): n for k, has, n in h["null_phrase"]}
    lines += [f"| {k} | {by.get((k, True), 0)} | {by.get((k, False), 0)} |"
              for k in ("contradicting evidence", "supporting evidence", "not evidence")]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", type=Path, default=RUN)
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    import datetime

    res = {
        "command": "python -m evals.studies.missed_claims" + (f" {' '.join(argv or sys.argv[1:])}".rstrip()),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "run": str(args.run.relative_to(REPO_ROOT)) if args.run.is_relative_to(REPO_ROOT) else str(args.run),
        "dev": dev_table(args.run),
        "heldout": heldout(read_replay()),
    }
    (args.out / "missed_claims.json").write_text(json.dumps(res, indent=1) + "\n")
    (args.out / "missed_claims.md").write_text(markdown(res))
    print(markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
