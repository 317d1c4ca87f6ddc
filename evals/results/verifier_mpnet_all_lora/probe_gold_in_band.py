"""Probe: dev's settled claims that end "Not enough evidence" although a gold paper passed the gate. For each, the
LLM's P(claim) and each verifier's direction of the paper's first shown sentence (placed as the run time places it),
read from the committed idle_reading run. A dev readout: nothing is fitted on it.

    .venv/bin/python evals/results/verifier_mpnet_all_lora/probe_gold_in_band.py NAME=ARTIFACT [NAME=ARTIFACT ...]
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from agent.judge.sources import verifier_direction
from evals.training.data import doc_premise, load_data
from tools.models.verifier import Verifier

DATA = Path("../shared/data/scifact")
RUN = Path("evals/results/idle_reading/scifact_dev_judgement.predictions.jsonl.gz")
GATE = 0.35  # the shipped gate's threshold (agent/judge/judge_calibration.json)


def main(trials: list[str]) -> None:
    corpus, _, _ = load_data(DATA)
    lines = (DATA / "claims_dev.jsonl").read_text().splitlines()
    gold = {c["id"]: c.get("evidence", {}) for c in map(json.loads, lines)}
    verifiers = {name: Verifier(Path(path)) for name, path in (t.split("=", 1) for t in trials)}
    right = dict.fromkeys(["llm", *verifiers], 0)
    shown_rationale = papers = 0
    with gzip.open(RUN, "rt") as f:
        runs = [json.loads(line) for line in f]
    for run in runs:
        evidence, result = gold[run["id"]], run["result"]
        if not evidence or not result["verdict"]["label"].startswith("Not enough"):
            continue
        for a in result["assessments"]:
            if a["doc_id"] not in evidence or a.get("bearing", 0.0) < GATE:
                continue
            papers += 1
            supports = evidence[a["doc_id"]][0]["label"] == "SUPPORT"
            shown = [s["sentence_index"] for s in result["sources"] if s["doc_id"] == a["doc_id"]]
            shown_rationale += bool(set(shown) & {i for e in evidence[a["doc_id"]] for i in e["sentences"]})
            right["llm"] += (a["p_claim"] > 0.5) == supports
            pair = (result["claim"], doc_premise(corpus[int(a["doc_id"])], [shown[0]], placed=True))
            row = [run["id"], "SUPPORT" if supports else "CONTRADICT", f"llm {a['p_claim']:.3f}"]
            for name, v in verifiers.items():
                p = verifier_direction(v.predict([pair])[0])
                right[name] += (p > 0.5) == supports
                row.append(f"{name} {p:.3f}")
            print(*row)
    print(f"{papers} gold papers past the gate in 'Not enough evidence' verdicts; a rationale shown in "
          f"{shown_rationale}; leaning to the gold side: {right}")


if __name__ == "__main__":
    main(sys.argv[1:])
