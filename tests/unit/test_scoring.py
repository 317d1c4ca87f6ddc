"""Labels and thresholds (FRSC) at their boundaries."""

from __future__ import annotations

from datetime import date

import pytest

from agent.judge.scoring import (
    CONTROVERSIAL,
    LEANING_REFUTED,
    LEANING_SUPPORTED,
    NOT_ENOUGH,
    REFUTED,
    SUPPORTED,
    WEAKLY_REFUTED,
    WEAKLY_SUPPORTED,
    global_label,
    grade,
    reputation,
    to_scifact,
    verdict_confidence,
    weighted_verdict,
)
from tools.corpus import Abstract
from tools.documents.design import DESIGNS


@pytest.mark.parametrize(
    ("score", "label"),
    [
        (1.0, SUPPORTED),
        (0.66, SUPPORTED),
        (0.6599, LEANING_SUPPORTED),
        (0.3301, LEANING_SUPPORTED),
        (0.33, CONTROVERSIAL),
        (0.0, CONTROVERSIAL),
        (-0.33, CONTROVERSIAL),
        (-0.3301, LEANING_REFUTED),
        (-0.6599, LEANING_REFUTED),
        (-0.66, REFUTED),
        (-1.0, REFUTED),
    ],
)
def test_global_label_boundaries(score, label):
    assert global_label(score) == label


@pytest.mark.parametrize(
    ("score", "label"),
    [
        (1.0, "True"),
        (0.84, "True"),
        (0.82, "Mostly True"),
        (0.5, "Mostly True"),
        (0.49, "Somewhat True"),
        (0.17, "Somewhat True"),
        (0.16, "No Evidence"),
        (0.0, "No Evidence"),
        (-0.16, "No Evidence"),
        (-0.17, "Somewhat False"),
        (-0.5, "Mostly False"),
        (-0.84, "False"),
        (-1.0, "False"),
    ],
)
def test_grade_nearest(score, label):
    assert grade(score) == label


def test_scifact_mapping():
    assert [to_scifact(x) for x in ("True", "Mostly True", "Somewhat True")] == ["SUPPORT"] * 3
    assert [to_scifact(x) for x in ("False", "Mostly False", "Somewhat False")] == ["CONTRADICT"] * 3
    assert to_scifact("No Evidence") == "NEI"


def test_weighted_verdict_ignores_no_evidence_and_handles_empty():
    assert weighted_verdict([]) == (NOT_ENOUGH, 0.0, 0.0, 0)
    assert weighted_verdict([(0.0, 1.0), (0.0, 0.5)]) == (NOT_ENOUGH, 0.0, 0.0, 0)
    label, score, unweighted, n = weighted_verdict([(1.0, 1.0), (0.0, 1.0), (-0.33, 1.0)])
    assert n == 2 and score == pytest.approx(0.335) and unweighted == pytest.approx(0.335)
    assert label == LEANING_SUPPORTED
    # all counted sources retracted: weight zero, so no verdict from them
    assert weighted_verdict([(1.0, 0.0)])[0] == NOT_ENOUGH


def test_reputation_inputs():
    base = {"doc_id": "1", "title": "t", "sentences": ["s"]}
    flat = dict.fromkeys(DESIGNS, 1.0)  # every design counts fully: the other inputs alone
    design = {"design": "unclassified", "design_basis": "none", "design_factor": 1.0}
    assert reputation(Abstract(**base), flat) == (1.0, design)
    assert reputation(Abstract(**base, retracted=True), flat) == (0.0, {**design, "retracted": True})
    cited, inputs = reputation(Abstract(**base, citation_count=1000, year=2020), flat, today=date(2026, 1, 1))
    assert cited == pytest.approx(1.0) and inputs == {**design, "citation_count": 1000, "year": 2020}
    uncited, _ = reputation(Abstract(**base, citation_count=0, year=2020), flat, today=date(2026, 1, 1))
    old, _ = reputation(Abstract(**base, citation_count=1000, year=1990), flat, today=date(2026, 1, 1))
    assert uncited == pytest.approx(0.5) and old == pytest.approx(0.6)


def test_one_sided_evidence_is_never_called_controversial():
    # a single "Somewhat True" source: weakly supported, not "Generally controversial"
    assert weighted_verdict([(0.33, 1.0)])[0] == WEAKLY_SUPPORTED
    assert weighted_verdict([(-0.33, 1.0), (-0.66, 0.5)])[0] == WEAKLY_REFUTED
    assert weighted_verdict([(0.66, 1.0), (1.0, 1.0)])[0] == SUPPORTED
    assert weighted_verdict([(-1.0, 1.0)])[0] == REFUTED
    # sources on both sides: FRSC's thresholds
    assert weighted_verdict([(1.0, 1.0), (-0.66, 1.0)])[0] == CONTROVERSIAL
    assert weighted_verdict([(1.0, 1.0), (1.0, 1.0), (-0.66, 1.0)])[0] == LEANING_SUPPORTED


def test_verdict_confidence_falls_when_sources_disagree():
    alone = verdict_confidence(SUPPORTED, [(1.0, 1.0, 0.9)], no_stance=0.2)
    assert alone == pytest.approx(0.9)
    # a contradicting source of equal weight halves the share on the verdict's side
    disputed = verdict_confidence(LEANING_SUPPORTED, [(1.0, 1.0, 0.9), (-0.33, 1.0, 0.6)], no_stance=0.2)
    assert disputed == pytest.approx(0.45)
    # no direction: the mean confidence of the counted sources; none counted: the no-stance confidence
    assert verdict_confidence(CONTROVERSIAL, [(1.0, 1.0, 0.8), (-1.0, 1.0, 0.6)], 0.2) == pytest.approx(0.7)
    assert verdict_confidence(NOT_ENOUGH, [(0.0, 1.0, 0.9)], no_stance=0.35) == pytest.approx(0.35)
    # a retracted source (weight 0) adds nothing
    assert verdict_confidence(SUPPORTED, [(1.0, 1.0, 0.9), (-1.0, 0.0, 0.99)], 0.2) == pytest.approx(0.9)
