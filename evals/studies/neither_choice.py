"""The gate's second option: a third choice, "C: neither", in the contrastive call, against the shipped yes/no
question, on the judge's replay of held-out SciFact train claims.

    python -m evals.studies.neither_choice ask [--limit N]     # the LLM's three-way answers, resumable
    python -m evals.studies.neither_choice report [--out evals/results]

``ask`` reads every abstract of the replay (evals/training/bearing_replay.py) as the product shows it to the LLM
(agent.judge.direction.evidence_text of the sentences the replay recorded) and asks prompts/direction_neither.md in both
orders (the claim as A, then as B; C is always "neither"). From the first token's probabilities over A, B and C:
P(neither) is C's share, averaged over the orders, and P(claim) is the claim's share of A and B, averaged over the
orders (the letter bias cancels as in agent.judge.direction.choose). One JSON row per abstract in
``evals/results/neither_choice/answers.jsonl``, appended as each is asked.

``report`` compares, with five folds of claims (each fold's gate, direction and threshold are fitted on the other
four, as evals/training/judge_calibration.py fits the shipped judge, and the fold is labelled by them):

* "yes/no, then A/B" (shipped): the gate on the verifier and the LLM's P(Yes, it bears), the direction from the
  two-order A/B call: three LLM calls per abstract;
* "A/B/C": the gate on the verifier and 1 - P(neither), the direction from the same call's A/B shares: two calls;
* "A/B/C gate, A/B direction": the three-way call's gate with the shipped direction (four calls, for the record);
* "yes/no gate, A/B/C direction": the shipped gate with the three-way call's direction, which reads contradicting
  evidence better (three calls, as shipped).

Reported: the area under the ROC curve for "SciFact evidence" of each LLM reading, Label-Only precision / recall /
F1 of the out-of-fold labels, direction accuracy on evidence abstracts, the share of the bearing set's papers
(evals/bearing_set) that count, and the seconds of each call.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

import prompts
from agent.llm.calls import first_token
from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.studies.replay_folds import (
    TARGET_PRECISION,
    Reading,
    ask_replay,
    ask_report_main,
    judges_compared,
    study_rows,
)

ANSWERS = REPO_ROOT / "evals" / "results" / "neither_choice" / "answers.jsonl"


def three_way(probs: Mapping[str, float], reply: str) -> tuple[float, float, float]:
    """(P(A), P(B), P(C)) normalised over the three letters from the first token's probabilities; from the reply's
    letter alone when the server sent none of them; thirds when the reply is no letter."""
    p = [sum(v for t, v in probs.items() if t.upper() == letter) for letter in "ABC"]
    if sum(p) > 0:
        return p[0] / sum(p), p[1] / sum(p), p[2] / sum(p)
    letter = reply.strip()[:1].upper()
    if letter in ("A", "B", "C"):
        return tuple(float(letter == x) for x in "ABC")  # type: ignore[return-value]
    return 1 / 3, 1 / 3, 1 / 3


def choose_or_neither(llm: Any, evidence: str, claim: str, opposite: str) -> dict[str, Any]:
    """The three-way call in both orders: P(claim) among A and B, P(neither), each averaged; seconds per call."""
    system = prompts.load("judge_system")
    claims, neithers, seconds = [], [], []
    for claim_first in (True, False):
        a, b = (claim, opposite) if claim_first else (opposite, claim)
        t0 = time.perf_counter()
        reply, probs, _ = first_token(llm, system, prompts.render("direction_neither", evidence=evidence, a=a, b=b))
        seconds.append(round(time.perf_counter() - t0, 3))
        pa, pb, pc = three_way(probs, reply)
        share = pa / (pa + pb) if pa + pb > 0 else 0.5
        claims.append(share if claim_first else 1.0 - share)
        neithers.append(pc)
    return {
        "p_claim": round(sum(claims) / 2, 4),
        "p_neither": round(sum(neithers) / 2, 4),
        "orders": [round(c, 4) for c in claims],
        "neither_orders": [round(n, 4) for n in neithers],
        "seconds": seconds,
    }


def ask(limit: int | None, path: Path = ANSWERS) -> None:
    """Asks the three-way question of every replayed abstract that ``path`` does not hold yet."""
    ask_replay(limit, path, lambda llm, text, row: choose_or_neither(llm, text, row["text"], row["opposite"]),
               "neither")


JUDGES: dict[str, tuple[Reading, int]] = {  # name: (reading, LLM calls per abstract)
    "yes/no, then A/B (shipped)": (lambda d, a: (d["llm_p_bears"], d["llm_p_claim"]), 3),
    "A/B/C": (lambda d, a: (1.0 - a["p_neither"], a["p_claim"]), 2),
    "A/B/C gate, A/B direction": (lambda d, a: (1.0 - a["p_neither"], d["llm_p_claim"]), 4),
    "yes/no gate, A/B/C direction": (lambda d, a: (d["llm_p_bears"], a["p_claim"]), 3),
}


def report(answers: Path, out: Path, argv: list[str] | None) -> int:
    from agent.settings.app import get_settings
    from evals.training.judge_calibration import auc

    rows = study_rows(answers, "neither_choice")
    if not rows:
        return 2
    docs = [d for r in rows for d in r["docs"]]
    gold = [d["gold"] is not None for d in docs]
    evidence = [d for d in docs if d["gold"] is not None]
    min_confidence = get_settings().judge.min_confidence
    res: dict[str, Any] = {
        **experiment_header("evals.studies.neither_choice", argv, "held-out SciFact train", []),
        "claims": len(rows),
        "abstracts": len(docs),
        "evidence_abstracts": sum(gold),
        "auc_evidence": {
            "verifier 1 - P(nei)": auc([d["bearing"] for d in docs], gold),
            "LLM P(Yes, it bears)": auc([d["llm_p_bears"] for d in docs], gold),
            "LLM 1 - P(neither)": auc([1 - d["answer"]["p_neither"] for d in docs], gold),
        },
        "direction_accuracy": {
            side: {
                "A/B": round(float(np.mean([(d["llm_p_claim"] > 0.5) == (d["gold"] == 0) for d in those])), 4),
                "A/B/C": round(float(np.mean([(d["answer"]["p_claim"] > 0.5) == (d["gold"] == 0) for d in those])),
                               4),
                "abstracts": len(those),
            }
            for side, those in (("all", evidence), ("supports", [d for d in evidence if d["gold"] == 0]),
                                ("contradicts", [d for d in evidence if d["gold"] == 1]))
        },
        "seconds_per_call": {
            "A/B/C": round(float(np.median([s for d in docs for s in d["answer"]["seconds"]])), 3),
        },
        "judges": judges_compared(rows, JUDGES, min_confidence),
    }
    write_experiment(out, "neither_choice", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The gate's two options: a yes/no question, or \"C: neither\" in the contrastive call",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {res['claims']} held-out SciFact train "
        f"claims, {res['abstracts']} retrieved abstracts ({res['evidence_abstracts']} SciFact evidence). Each "
        "judge's gate, direction and threshold are fitted on four folds of claims and label the fifth (target "
        f"Label-Only precision {TARGET_PRECISION}); figures are on the out-of-fold labels.",
        "",
        "Area under the ROC curve for \"SciFact evidence\": "
        + "; ".join(f"{k} {v}" for k, v in res["auc_evidence"].items()) + ".",
        "",
        "| judge | LLM calls per abstract | Label-Only P | R | F1 | labels | bearing set: bears count | partly "
        "| no (off-topic) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, j in res["judges"].items():
        s, b = j["label_only"], j["bearing_set"]
        cells = [f"{c}/{n}" for c, n in (b["bears"], b["partly"], b["no"])]
        lines.append(f"| {name} | {j['llm_calls_per_abstract']} | {s['precision']} | {s['recall']} | {s['f1']} "
                     f"| {s['predicted']} | " + " | ".join(cells) + " |")
    lines += ["", "Direction on SciFact evidence abstracts (P(claim) > 0.5 is the annotators' side):", "",
              "| abstracts | A/B call | A/B/C call |", "|---|---:|---:|"]
    for side, acc in res["direction_accuracy"].items():
        lines.append(f"| {side} ({acc['abstracts']}) | {acc['A/B']} | {acc['A/B/C']} |")
    lines += ["", f"Median seconds per three-way call: {res['seconds_per_call']['A/B/C']}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return ask_report_main(__doc__ or "", argv, ANSWERS, ask, report)


if __name__ == "__main__":
    sys.exit(main())
