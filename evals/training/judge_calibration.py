"""Fits the two-part judge's calibration (agent/judge_calibration.json) on held-out SciFact train claims: the slice of
train the verifier never trained on (evals/verifier/data.split_heldout, 15 %, seed 13).

    python -m evals.training.judge_calibration [--target-precision 0.7] [--out agent/judge_calibration.json]

* The evidence gate: each held-out claim runs through the product's retrieval and evidence selection (agent.stages)
  and the verifier reads every candidate sentence, as the assess node does. Per abstract read, the features are the
  logit of its strongest sentence's 1 - P(nei) and its retrieval rank; the target is whether SciFact's annotators
  cite the abstract as evidence for or against the claim. A logistic regression gives P(bears); the threshold is
  the lowest whose held-out precision reaches ``--target-precision`` (so the gate keeps as much as that allows).
* The direction: on the held-out gold rationale pairs that bear (evals/studies/direction_judge.py collects the LLM's
  choices), a logistic regression of "supports" on the logit of the LLM's P(claim) and of the verifier's
  supports / (supports + contradicts).

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
from evals.training.direction_data import CACHE_DIR, direction_rows
from evals.verifier.data import load_data, split_heldout

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO.parent / "shared" / "data" / "scifact"
OUT = REPO / "agent" / "judge_calibration.json"


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def gate_rows(claims: Sequence[Any], data_dir: Path) -> list[dict[str, Any]]:
    """Per claim and abstract read: the strongest sentence's 1 - P(nei), the retrieval rank, and whether it is gold
    evidence; the product's own retrieval, evidence selection and verifier."""
    from agent import stages
    from agent.nodes.assess import premise
    from agent.service import load_deps
    from agent.settings import get_settings

    settings = get_settings().with_values(live={"sources": "local"}, judge={"direction": "verifier"})
    deps = load_deps(settings)
    rows = []
    for claim in claims:
        state = stages.evidence(stages.retrieval(claim.text, deps), deps)
        candidates = state.get("evidence", [])
        results = deps.verifier.predict([(claim.text, premise(ev)) for ev in candidates])
        best: dict[str, float] = {}
        for ev, res in zip(candidates, results, strict=True):
            best[ev.doc_id] = max(best.get(ev.doc_id, 0.0), 1.0 - res.p_nei)
        gold = {str(d) for d in claim.evidence}
        for rank, (doc_id, bearing) in enumerate(best.items()):
            rows.append({"claim": claim.id, "doc_id": doc_id, "rank": rank, "bearing": bearing, "gold": doc_id in gold})
    return rows


def fit_logistic(x: np.ndarray, y: np.ndarray) -> tuple[float, ...]:
    """(intercept, weights...) of an L2-regularised logistic regression (C=10)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=10.0).fit(x, y)
    return (float(model.intercept_[0]), *(float(w) for w in model.coef_[0]))


def apply(weights: Sequence[float], x: np.ndarray) -> np.ndarray:
    z = weights[0] + x @ np.asarray(weights[1:])
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


def gate_features(rows: Sequence[dict[str, Any]]) -> np.ndarray:
    return np.array([[logit(r["bearing"]), r["rank"]] for r in rows])


def choose_threshold(p: np.ndarray, gold: np.ndarray, target: float) -> dict[str, float]:
    """The lowest threshold whose precision reaches ``target``, with its precision and recall."""
    best = {"threshold": 1.0, "precision": 0.0, "recall": 0.0}
    for t in sorted(set(np.round(p, 4).tolist()), reverse=True):
        kept = p >= t
        precision = float(gold[kept].mean()) if kept.any() else 0.0
        if precision >= target:
            best = {"threshold": t, "precision": round(precision, 4), "recall": round(float(gold[kept].sum() /
                                                                                        max(1, gold.sum())), 4)}
    return best


def direction_features(rows: Sequence[dict[str, Any]], with_verifier: bool) -> np.ndarray:
    def v(r: dict[str, Any]) -> float:
        s, c = r["verifier"][0], r["verifier"][1]
        return s / (s + c) if s + c > 0 else 0.5

    return np.array([[logit(r["llm"]), logit(v(r))] if with_verifier else [logit(r["llm"])] for r in rows])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=DATA_DIR)
    p.add_argument("--cache", type=Path, default=CACHE_DIR)
    p.add_argument("--target-precision", type=float, default=0.7)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)

    corpus, train, _ = load_data(args.data_dir)
    _, held = split_heldout(train, 0.15, 13)
    held = [c for c in held if c.evidence or c.cited]
    rows = gate_rows(held, args.data_dir)
    gold = np.array([r["gold"] for r in rows])
    gate = fit_logistic(gate_features(rows), gold)
    chosen = choose_threshold(apply(gate, gate_features(rows)), gold, args.target_precision)

    pairs = [r for r in direction_rows(args.cache, "heldout") if r["label"] != 2]
    supports = np.array([r["label"] == 0 for r in pairs])
    with_verifier = fit_logistic(direction_features(pairs, True), supports)
    accuracy = float(((apply(with_verifier, direction_features(pairs, True)) > 0.5) == supports).mean())
    out = {
        "gate_weights": [round(w, 4) for w in gate],
        "gate_threshold": chosen["threshold"],
        "direction_weights": [round(w, 4) for w in with_verifier],
        "fitted": {
            "command": "python -m evals.training.judge_calibration " + " ".join(sys.argv[1:] if argv is None else argv),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "git_commit": git_commit(),
            "on": "held-out SciFact train claims (evals/verifier/data.split_heldout 0.15, seed 13)",
            "gate": {"claims": len(held), "abstracts": len(rows), "gold": int(gold.sum()),
                     "target_precision": args.target_precision, **chosen},
            "direction": {"pairs": len(pairs), "accuracy_on_fit": round(accuracy, 4)},
        },
    }
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
