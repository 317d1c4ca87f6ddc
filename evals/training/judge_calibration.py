"""Fits the two-part judge's calibration (agent/judge/judge_calibration.json) on held-out SciFact train claims: the
slice of train the verifier never trained on (evals/training/data.split_heldout, 15 %, seed 13).

    python -m evals.training.judge_calibration [--target-precision 0.65] [--out agent/judge/judge_calibration.json]
        [--gate-reads shown|context] [--gate-asks-opposite [--gate-combines mean|max]] [--direction-reads-verifier]
        [--direction-reads shown|context]

It reads the judge's replay (evals/training/bearing_replay.py: for each retrieved abstract of each held-out claim,
the verifier's strongest 1 - P(nei), the LLM's P(Yes, it bears) and its P(claim) against the opposite) and fits:

* The verifier's gate: P(the abstract is evidence for or against the claim, as SciFact's annotators cite it) by a
  logistic regression on the logit of its strongest sentence's 1 - P(nei).
* The gate: the same, on that logit and the logit of the LLM's P(Yes).
* The direction: on the abstracts that bear (SciFact's evidence abstracts), a logistic regression of "supports" on
  the logit of the LLM's P(claim) (Platt scaling). Off-topic abstracts are left out: the LLM's slight lean on them
  is no reading of direction, and fitting on them would amplify it. With ``--direction-reads-verifier`` the logit of
  the verifier's own P(claim) on the strongest sentence is a second input: the verifier votes beside the LLM.
* The gate's threshold: the best held-out Label-Only F1 whose precision reaches ``--target-precision`` (the best
  precision when none does), with the product's verdict rule at the settings' MIN_CONFIDENCE.
* The verifier's threshold, for the verifier alone: the best Label-Only F1, with the verifier's own labels, whose
  precision reaches the gate's; when none does (the verifier alone cannot tell the paper a claim is about from its
  neighbours), its best F1 of all, for JUDGE_DIRECTION=verifier. Whether the verifier stands in for the LLM on an
  abstract the LLM did not read (``verifier_stands_in``): only when it reaches the gate's precision; otherwise such
  an abstract is listed as not read and never counts.
* The floor below which the LLM is not asked: the highest verifier P(bears) that keeps at least 97 % of the held-out
  evidence abstracts above it.

The gate's LLM reading is the replay's P(Yes) on the shown sentences, or with ``--gate-reads context`` the P(Yes) on
the abstract around them that the in-context study (retired; evals/studies/README.md) recorded for the same
abstracts. With ``--gate-asks-opposite`` it is the mean of the claim's and its opposite's P(Yes) (``--gate-combines
max``: the higher), as the in-context study recorded them for the reading named. The direction's LLM reading is the
replay's P(claim) on the shown sentences, or with ``--direction-reads context`` the P(claim) on the abstract around
them that the in-context study recorded. The fitted file names the readings, and the judge reads the same.

Dev is never read here. Every trial is written to evals/results/judge_calibration_heldout.json.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from agent.judge.calibration import logit
from evals.experiments import git_commit
from evals.training.bearing_replay import REPLAY, read_replay
from evals.training.replay_readings import direction_reading, gate_reading

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "agent" / "judge" / "judge_calibration.json"
FLOOR_KEEPS = 0.97  # the share of held-out evidence abstracts the LLM must still be asked about


def fit_logistic(x: np.ndarray, y: np.ndarray, c: float = 10.0) -> tuple[float, ...]:
    """(intercept, weights...) of an L2-regularised logistic regression (inverse strength ``c``)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=5000).fit(x, y)
    return (float(model.intercept_[0]), *(float(w) for w in model.coef_[0]))


def apply(weights: Sequence[float], x: np.ndarray) -> np.ndarray:
    z = weights[0] + x @ np.asarray(weights[1:])
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


def direction_row(llm_p_claim: float, verifier_p_claim: float, with_verifier: bool) -> list[float]:
    """One abstract's direction inputs, as agent.judge.calibration weighs them: the logit of the LLM's P(claim),
    and with ``with_verifier`` the logit of the verifier's own P(claim)."""
    return [logit(llm_p_claim), logit(verifier_p_claim)] if with_verifier else [logit(llm_p_claim)]


def direction_features(rows: Sequence[dict[str, Any]], with_verifier: bool) -> np.ndarray:
    """The direction's inputs on the LLM's contrastive answers (evals/training/direction_data rows)."""

    def v(r: dict[str, Any]) -> float:
        s, c = r["verifier"][0], r["verifier"][1]
        return s / (s + c) if s + c > 0 else 0.5

    return np.array([direction_row(r["llm"], v(r), with_verifier) for r in rows])


def direction_inputs(docs: Sequence[dict[str, Any]], with_verifier: bool) -> np.ndarray:
    """The direction's inputs on replayed abstracts."""
    return np.array([direction_row(d["llm_p_claim"], d["verifier_p_claim"], with_verifier) for d in docs])


def verifier_x(docs: Sequence[dict[str, Any]]) -> np.ndarray:
    return np.array([[logit(d["bearing"])] for d in docs])


def gate_x(docs: Sequence[dict[str, Any]]) -> np.ndarray:
    return np.array([[logit(d["bearing"]), logit(d["llm_p_bears"])] for d in docs])


def auc(scores: Sequence[float], positive: Any) -> float:
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(np.asarray(positive), np.asarray(scores))), 4)


Labeller = Callable[[dict[str, Any]], "tuple[str, float] | None"]


def label_only(rows: Sequence[dict[str, Any]], labeller: Labeller, min_confidence: float) -> dict[str, float]:
    """Label-Only precision / recall / F1 (SciFact's abstract level) on replayed claims: ``labeller`` gives an
    abstract's 7-grade label and stance confidence, or None when it does not count; the product's verdict rule
    labels nothing when the verdict is "Cannot decide" or "Not enough evidence"."""
    from agent.judge.scoring import GRADE_SCORE, NOT_ENOUGH, UNDECIDED, to_scifact
    from agent.judge.verdict import decide
    from agent.state import SourceAssessment

    right = predicted = gold = 0
    for row in rows:
        gold += row["gold_docs"]
        labelled = []
        for d in row["docs"]:
            got = labeller(d)
            if got is None:
                continue
            label, confidence = got
            a = SourceAssessment(doc_id=d["doc_id"], label=label, score=GRADE_SCORE[label], reputation=1.0,
                                 explanation="", stance_confidence=confidence)
            labelled.append((d, a))
        verdict = decide([a for _, a in labelled], 0, 1.0, min_confidence)
        if verdict.label in (UNDECIDED, NOT_ENOUGH):
            continue
        for d, a in labelled:
            side = to_scifact(a.label)
            if side == "NEI":
                continue
            predicted += 1
            right += d["gold"] is not None and side == ("SUPPORT" if d["gold"] == 0 else "CONTRADICT")
    precision = right / predicted if predicted else 0.0
    recall = right / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4), "predicted": predicted}


def pick(trials: list[dict[str, Any]], target: float) -> dict[str, Any]:
    """The trial with the best F1 among those whose precision reaches ``target``; the most precise when none does."""
    reaching = [t for t in trials if t["precision"] >= target]
    if reaching:
        return max(reaching, key=lambda t: (t["f1"], t["precision"]))
    return max(trials, key=lambda t: (t["precision"], t["f1"]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", type=Path, default=REPLAY)
    p.add_argument("--target-precision", type=float, default=0.65, help="Label-Only precision on held-out claims")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--results", type=Path, default=REPO / "evals" / "results", help="where every trial is written")
    p.add_argument("--gate-reads", choices=("shown", "context"), default="shown",
                   help="what the LLM's bearing question reads: the shown sentences or the abstract around them")
    p.add_argument("--gate-asks-opposite", action="store_true",
                   help="the bearing question is asked of the claim and of its opposite, and the two read as one")
    p.add_argument("--gate-combines", choices=("mean", "max"), default="mean",
                   help="with --gate-asks-opposite: the mean of the two P(Yes), or the higher")
    p.add_argument("--direction-reads", choices=("shown", "context"), default="shown",
                   help="what the LLM's direction question reads: the shown sentences or the abstract around them")
    p.add_argument("--direction-reads-verifier", action="store_true",
                   help="the verifier's own P(claim) votes in the direction beside the LLM's")
    args = p.parse_args(argv)

    from agent.judge.calibration import JudgeCalibration
    from agent.judge.scoring import grade
    from agent.settings.app import get_settings

    rows = read_replay(args.replay)
    if not rows:
        print(f"no replay at {args.replay}: run python -m evals.training.bearing_replay first", file=sys.stderr)
        return 2
    if args.gate_reads == "context" or args.gate_asks_opposite:
        rows = gate_reading(rows, args.gate_reads, args.gate_asks_opposite, args.gate_combines)
        if not rows:
            print("no recorded answers for this reading in evals/results/in_context/ (the in-context study, retired: "
                  "evals/studies/README.md)", file=sys.stderr)
            return 2
    if args.direction_reads == "context":
        rows = direction_reading(rows)
        if not rows:
            print("no recorded direction answers in context in evals/results/in_context/ (evals/studies/README.md)",
                  file=sys.stderr)
            return 2
    docs = [d for r in rows for d in r["docs"]]
    gold = np.array([d["gold"] is not None for d in docs])
    verifier_gate = fit_logistic(verifier_x(docs), gold)
    gate = fit_logistic(gate_x(docs), gold)
    bearing = [d for d in docs if d["gold"] is not None]
    supports = np.array([d["gold"] == 0 for d in bearing])
    direction_x = direction_inputs(bearing, args.direction_reads_verifier)
    direction = fit_logistic(direction_x, supports)
    accuracy = float(((apply(direction, direction_x) > 0.5) == supports).mean())

    v_gold = np.sort(apply(verifier_gate, verifier_x(bearing)))
    ask_floor = round(float(v_gold[int(math.floor(len(v_gold) * (1 - FLOOR_KEEPS)))]) - 1e-4, 4)
    base = JudgeCalibration(
        verifier_gate=(verifier_gate[0], verifier_gate[1]),
        ask_floor=ask_floor,
        gate_weights=(gate[0], gate[1], gate[2]),
        direction_weights=tuple(direction),
    )
    min_confidence = get_settings().judge.min_confidence

    def judged(threshold: float) -> Labeller:
        def labeller(d: dict[str, Any]) -> tuple[str, float] | None:
            if not base.worth_asking(base.verifier_bearing(d["bearing"])):
                return None
            if base.bearing(d["bearing"], d["llm_p_bears"]) < threshold:
                return None
            st = base.stance(d["llm_p_claim"], d["verifier_p_claim"])
            return st.label, st.confidence

        return labeller

    def verifier_alone(threshold: float) -> Labeller:
        def labeller(d: dict[str, Any]) -> tuple[str, float] | None:
            if base.verifier_bearing(d["bearing"]) < threshold or d["verifier_label"] == "nei":
                return None
            p = d["verifier_p_claim"]
            return grade(2 * p - 1), max(p, 1 - p)

        return labeller

    grid = sorted({round(float(t), 3) for t in np.linspace(0.05, 0.8, 31)})
    gate_trials = [{"threshold": t, **label_only(rows, judged(t), min_confidence)} for t in grid]
    chosen = pick(gate_trials, args.target_precision)
    fallback_trials = [{"threshold": t, **label_only(rows, verifier_alone(t), min_confidence)} for t in grid]
    reaching = [t for t in fallback_trials if t["precision"] >= chosen["precision"]]
    best_f1 = max(fallback_trials, key=lambda t: (t["f1"], t["precision"]))
    fallback = pick(reaching, chosen["precision"]) if reaching else best_f1
    out = {
        "verifier_gate": [round(w, 4) for w in verifier_gate],
        "verifier_threshold": fallback["threshold"],
        "verifier_stands_in": bool(reaching),
        "ask_floor": ask_floor,
        "gate_weights": [round(w, 4) for w in gate],
        "gate_threshold": chosen["threshold"],
        "gate_reads": args.gate_reads,
        "gate_asks_opposite": args.gate_asks_opposite,
        "gate_combines": args.gate_combines,
        "direction_reads": args.direction_reads,
        "direction_weights": [round(w, 4) for w in direction],
        "fitted": {
            "command": " ".join(["python -m evals.training.judge_calibration", *(argv or sys.argv[1:])]),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "git_commit": git_commit(),
            "on": "held-out SciFact train claims (evals/training/data.split_heldout 0.15, seed 13), "
            "replayed by evals/training/bearing_replay.py",
            "claims": len(rows),
            "abstracts": len(docs),
            "evidence_abstracts": int(gold.sum()),
            "auc_evidence": {
                "verifier": auc([d["bearing"] for d in docs], gold),
                "llm": auc([d["llm_p_bears"] for d in docs], gold),
                "gate": auc(list(apply(gate, gate_x(docs))), gold),
            },
            "min_confidence": min_confidence,
            "target_label_only_precision": args.target_precision,
            "target_reached": chosen["precision"] >= args.target_precision,
            "heldout_label_only": chosen,
            "verifier_alone_label_only": fallback,
            "verifier_alone_reaches_the_gate_precision": bool(reaching),
            "asked_above_floor": round(float(np.mean(apply(verifier_gate, verifier_x(docs)) >= ask_floor)), 4),
            "direction": {"abstracts": len(bearing), "accuracy_on_fit": round(accuracy, 4),
                          "reads": "the LLM and the verifier" if args.direction_reads_verifier else "the LLM",
                          "the_llm_reads": args.direction_reads},
        },
    }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "judge_calibration_heldout.json").write_text(
        json.dumps({**out, "gate_trials": gate_trials, "verifier_alone_trials": fallback_trials}, indent=2) + "\n"
    )
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
