"""Fits the two-part judge's calibration (agent/judge_calibration.json) on held-out SciFact train claims: the slice of
train the verifier never trained on (evals/training/data.split_heldout, 15 %, seed 13).

    python -m evals.training.judge_calibration [--target-precision 0.7] [--out agent/judge_calibration.json]

* The replay: each held-out claim runs through the product's retrieval, evidence selection and judge with the gate
  off (agent.stages; the LLM reads the direction of every abstract with a bearing sentence), and the verifier reads
  every candidate sentence, as the assess node does; kept in ``judge_replay_heldout.jsonl`` (resumable).
* The evidence gate: P(the abstract is evidence for or against the claim, as SciFact's annotators cite it) by a
  logistic regression on the logit of its strongest sentence's 1 - P(nei). The retrieval rank predicts it better on
  SciFact (41 % of rank-1 abstracts are gold, 7 % of rank-2), but only because each SciFact claim was written from
  one abstract; a gate that read it would label little but the top abstract of any check, so it is left out.
* The direction: on the held-out gold rationale pairs that bear (evals/studies/direction_judge.py collects the LLM's
  choices), a logistic regression of "supports" on the logit of the LLM's P(claim) (Platt scaling). The verifier's
  own supports / (supports + contradicts) is left out: it reads topic where direction is asked, and on the held-out
  slice, which chose the verifier's training epoch and temperature, it looks better than it is (the study's dev
  table has both).
* The gate's threshold: the best held-out Label-Only F1 whose precision reaches ``--target-precision`` (the best F1
  of all when none does), with the product's verdict rule at the settings' MIN_CONFIDENCE.

Dev is never read here.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import git_commit
from evals.training.data import load_data, split_heldout
from evals.training.direction_data import CACHE_DIR, direction_rows

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO.parent / "shared" / "data" / "scifact"
OUT = REPO / "agent" / "judge_calibration.json"


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def replay(claims: Sequence[Any], cache: Path) -> list[dict[str, Any]]:
    """Per held-out claim, the product's retrieval and evidence, the verifier on every candidate sentence, and the
    LLM's direction for every abstract with a sentence the verifier reads as bearing (the judge without its gate, so
    that any gate can be tried on the same answers). One JSON row per claim in ``cache`` (resumable): per abstract
    read, its rank, its strongest sentence's 1 - P(nei), the verifier's and the LLM's P(claim), and its gold label."""
    from agent import stages
    from agent.nodes.assess import premise
    from agent.service import load_deps
    from agent.settings import get_settings

    done = {}
    if cache.is_file():
        done = {r["claim"]: r for r in map(json.loads, cache.read_text().splitlines())}
    todo = [c for c in claims if c.id not in done]
    if todo:
        settings = get_settings().with_values(live={"sources": "local"}, judge={"gate": False, "direction_seconds": 60})
        deps = load_deps(settings)
    for k, claim in enumerate(todo, start=1):
        retrieved = stages.retrieval(claim.text, deps)
        candidates = stages.evidence(retrieved, deps).get("evidence", [])
        state = stages.judgement(retrieved, deps)
        results = deps.verifier.predict([(claim.text, premise(ev)) for ev in candidates])
        best: dict[str, float] = {}
        for ev, res in zip(candidates, results, strict=True):
            best[ev.doc_id] = max(best.get(ev.doc_id, 0.0), 1.0 - res.p_nei)
        assessed = {a.doc_id: a for a in state.get("assessments", [])}
        asked = {key.split("|")[0]: p for key, p in state.get("directions", {}).items()}
        gold = {str(d): sets[0][1] for d, sets in claim.evidence.items()}
        docs = [
            {
                "doc_id": doc_id,
                "rank": rank,
                "bearing": round(bearing, 5),
                "verifier_p_claim": assessed[doc_id].verifier_p_claim if doc_id in assessed else None,
                "llm_p_claim": asked.get(doc_id),
                "gold": gold.get(doc_id),  # 0 supports, 1 contradicts, None: not evidence
            }
            for rank, (doc_id, bearing) in enumerate(best.items())
        ]
        row = {"claim": claim.id, "gold_docs": len(gold), "docs": docs}
        with cache.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        done[claim.id] = row
        print(f"replay: {k}/{len(todo)} claims", flush=True)
    return [done[c.id] for c in claims]


def fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[float, ...]:
    """(intercept, weights...) of an L2-regularised logistic regression (C=10)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=10.0).fit(x, y)
    return (float(model.intercept_[0]), *(float(w) for w in model.coef_[0]))


def apply(weights: Sequence[float], x: np.ndarray) -> np.ndarray:
    z = weights[0] + x @ np.asarray(weights[1:])
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


def gate_features(docs: Sequence[dict[str, Any]]) -> np.ndarray:
    """The gate reads the verifier alone: the logit of the abstract's strongest sentence's 1 - P(nei)."""
    return np.array([[logit(d["bearing"])] for d in docs])


def direction_features(rows: Sequence[dict[str, Any]], with_verifier: bool) -> np.ndarray:
    def v(r: dict[str, Any]) -> float:
        s, c = r["verifier"][0], r["verifier"][1]
        return s / (s + c) if s + c > 0 else 0.5

    return np.array([[logit(r["llm"]), logit(v(r))] if with_verifier else [logit(r["llm"])] for r in rows])


def label_only(rows: Sequence[dict[str, Any]], cal: Any, min_confidence: float) -> dict[str, float]:
    """Label-Only precision / recall / F1 (SciFact's abstract level) of the judge ``cal`` on replayed claims, with the
    product's verdict rule: a verdict below ``min_confidence`` ("Cannot decide") labels no abstract."""
    from agent.nodes.verdict import decide
    from agent.scoring import NOT_ENOUGH, UNDECIDED, to_scifact
    from agent.state import SourceAssessment

    right = predicted = gold = 0
    for row in rows:
        gold += row["gold_docs"]
        labelled = []
        for d in row["docs"]:
            bearing = cal.bearing(d["bearing"], d["rank"])
            if not cal.passes(bearing) or d["llm_p_claim"] is None:
                continue
            st = cal.stance(d["llm_p_claim"], d["verifier_p_claim"] or 0.5)
            a = SourceAssessment(doc_id=d["doc_id"], label=st.label, score=st.score, reputation=1.0, explanation="",
                                 stance_confidence=st.confidence)
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=DATA_DIR)
    p.add_argument("--cache", type=Path, default=CACHE_DIR)
    p.add_argument("--target-precision", type=float, default=0.45, help="Label-Only precision on held-out claims")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--results", type=Path, default=REPO / "evals" / "results", help="where every trial is written")
    args = p.parse_args(argv)

    from agent.judge import JudgeCalibration
    from agent.settings import get_settings

    corpus, train, _ = load_data(args.data_dir)
    _, held = split_heldout(train, 0.15, 13)
    held = [c for c in held if c.evidence or c.cited]
    rows = replay(held, args.cache / "judge_replay_heldout.jsonl")
    docs = [d for r in rows for d in r["docs"]]
    gold = np.array([d["gold"] is not None for d in docs])
    gate = fit_logistic(gate_features(docs), gold)

    pairs = [r for r in direction_rows(args.cache, "heldout") if r["label"] != 2]
    supports = np.array([r["label"] == 0 for r in pairs])
    # the LLM's reading alone (Platt scaling): the verifier's own direction is what reads topic for direction, and
    # its held-out figures are flattered by the slice having chosen its training epoch and temperature
    direction = (*fit_logistic(direction_features(pairs, False), supports), 0.0)
    accuracy = float(((apply(direction[:2], direction_features(pairs, False)) > 0.5) == supports).mean())

    # the gate's threshold for the best held-out Label-Only F1 among those whose precision reaches the target (the
    # best F1 of all when none does), at the verdict's confidence threshold of the settings
    min_confidence = get_settings().judge.min_confidence
    trials = []
    for threshold in sorted({round(float(t), 3) for t in np.linspace(0.1, 0.7, 25)}):
        cal = JudgeCalibration(
            gate_weights=(gate[0], gate[1], 0.0),
            gate_threshold=threshold,
            direction_weights=(direction[0], direction[1], direction[2]),
        )
        trials.append({"gate_threshold": threshold, **label_only(rows, cal, min_confidence)})
    reaching = [t for t in trials if t["precision"] >= args.target_precision] or trials
    chosen = max(reaching, key=lambda t: (t["f1"], t["precision"]))
    out = {
        "gate_weights": [round(gate[0], 4), round(gate[1], 4), 0.0],
        "gate_threshold": chosen["gate_threshold"],
        "direction_weights": [round(w, 4) for w in direction],
        "fitted": {
            "command": " ".join(["python -m evals.training.judge_calibration", *(argv or sys.argv[1:])]),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "git_commit": git_commit(),
            "on": "held-out SciFact train claims (evals/training/data.split_heldout 0.15, seed 13)",
            "gate": {
                "claims": len(held),
                "abstracts": len(docs),
                "gold": int(gold.sum()),
                "target_label_only_precision": args.target_precision,
                "target_reached": chosen["precision"] >= args.target_precision,
                "min_confidence": min_confidence,
                "heldout_label_only": chosen,
            },
            "direction": {"pairs": len(pairs), "accuracy_on_fit": round(accuracy, 4)},
        },
    }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "judge_calibration_heldout.json").write_text(json.dumps({**out, "trials": trials}, indent=2) + "\n")
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
