"""The bearing set's arithmetic (evals/studies/bearing_set.py) and the judge calibration's choice of thresholds
(evals/training/judge_calibration.py)."""

from __future__ import annotations

import pytest

from evals.studies.bearing_set import cohen_kappa, final_label
from evals.training.judge_calibration import label_only, pick


def test_the_weaker_label_stands_when_readers_differ():
    assert final_label(["bears", "bears"]) == "bears"
    assert final_label(["bears", "partly"]) == "partly" and final_label(["no", "bears"]) == "no"


def test_cohen_kappa_corrects_agreement_for_chance():
    a = ["bears", "no", "no", "partly", "no", "bears"]
    assert cohen_kappa(a, a) == 1.0
    b = ["no", "no", "no", "partly", "bears", "bears"]  # 4 of 6 agree; chance (2*2 + 3*3 + 1*1) / 36
    assert cohen_kappa(a, b) == pytest.approx((4 / 6 - 14 / 36) / (1 - 14 / 36), abs=1e-4)


def test_pick_takes_the_best_f1_that_reaches_the_precision_else_the_most_precise():
    trials = [
        {"threshold": 0.2, "precision": 0.5, "recall": 0.5, "f1": 0.5},
        {"threshold": 0.4, "precision": 0.7, "recall": 0.3, "f1": 0.42},
        {"threshold": 0.6, "precision": 0.8, "recall": 0.1, "f1": 0.18},
    ]
    assert pick(trials, 0.65)["threshold"] == 0.4
    assert pick(trials, 0.9)["threshold"] == 0.6


def test_label_only_counts_labels_only_when_the_verdict_decides():
    rows = [
        {"gold_docs": 1, "docs": [{"doc_id": "1", "gold": 0}, {"doc_id": "2", "gold": None}]},
        {"gold_docs": 1, "docs": [{"doc_id": "3", "gold": 1}, {"doc_id": "4", "gold": None}]},
    ]
    # claim 1: both papers support (one right, one not evidence); claim 2: two unsure papers disagree, so the
    # verdict's confidence is below 0.5 and it abstains ("Cannot decide"): none of its labels counts
    labels = {"1": ("True", 0.9), "2": ("Mostly True", 0.8), "3": ("False", 0.45), "4": ("True", 0.45)}
    got = label_only(rows, lambda d: labels[d["doc_id"]], 0.5)
    assert got == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "predicted": 2}
    none = label_only(rows, lambda d: None, 0.5)
    assert none["predicted"] == 0 and none["recall"] == 0.0
