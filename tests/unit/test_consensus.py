"""The consensus view: counts and shares of supports / contradicts / no evidence over every source a check read."""

from __future__ import annotations

from typing import Any

import pytest

from agent.judge.consensus import Consensus, Share, consensus, tally
from agent.judge.verdict import decide
from agent.result import CheckResult
from agent.state import SilentSource, SourceAssessment


def labelled(doc_id: str, label: str, weight: float = 1.0, **inputs: Any) -> SourceAssessment:
    from agent.judge.scoring import GRADE_SCORE

    return SourceAssessment(doc_id=doc_id, label=label, score=GRADE_SCORE[label], reputation=weight,
                            reputation_inputs=inputs, explanation="", stance_confidence=0.9)


def silent(doc_id: str, weight: float = 1.0, **inputs: Any) -> SilentSource:
    return SilentSource(doc_id=doc_id, title=f"Title {doc_id}", reputation=weight, reputation_inputs=inputs)


def result(assessments: list[SourceAssessment], quiet: list[SilentSource]) -> CheckResult:
    return CheckResult(claim="X causes Y.", assessments=assessments, silent=quiet)


def test_counts_and_shares_over_labelled_and_silent_sources():
    c = consensus(result([labelled("1", "True"), labelled("2", "Mostly True"), labelled("3", "Somewhat True"),
                          labelled("4", "False"), labelled("5", "No Evidence")], [silent("6")]))
    assert (c.supports.count, c.contradicts.count, c.no_evidence.count, c.sources, c.retracted) == (3, 1, 2, 6, 0)
    assert (c.supports.share, c.contradicts.share, c.no_evidence.share) == (0.5, 0.1667, 0.3333)
    assert c.supports.weighted_share == 0.5  # equal weights: weighted and unweighted agree
    assert c.percentages(weighted=True) == (50, 17, 33) and sum(c.percentages(weighted=False)) == 100


def test_weights_change_the_weighted_share_but_not_the_counts():
    light = [labelled("1", "True", 0.3), labelled("2", "True", 0.3), labelled("3", "False", 0.9)]
    heavy = [labelled("1", "True", 0.9), labelled("2", "True", 0.9), labelled("3", "False", 0.3)]
    a, b = tally(light, [silent("4", 0.5)]), tally(heavy, [silent("4", 0.5)])
    for c in (a, b):
        assert (c.supports.count, c.contradicts.count, c.no_evidence.count, c.sources) == (2, 1, 1, 4)
        assert c.supports.share == 0.5
    assert a.supports.weighted_share == 0.6 / 2.0 and a.contradicts.weighted_share == 0.45
    assert b.supports.weighted_share == round(1.8 / 2.6, 4) and b.contradicts.weighted_share == round(0.3 / 2.6, 4)
    assert a.weight == 2.0 and a.supports.weight == 0.6


def test_a_leaning_no_evidence_label_counts_as_no_evidence_as_in_the_verdict():
    leaning = labelled("1", "No Evidence").model_copy(update={"score": 0.12})  # leans supports, too weak to count
    assessments = [leaning, labelled("2", "Mostly False")]
    c = tally(assessments, [silent("3")])
    v = decide(assessments, silent=1, no_stance=0.5, min_confidence=0.0)
    assert (c.supports.count, c.contradicts.count, c.no_evidence.count) == (v.supporting, v.contradicting,
                                                                             v.irrelevant) == (0, 1, 2)


def test_a_retracted_source_weighs_nothing_and_is_counted_apart():
    c = tally([labelled("1", "True", 0.0, retracted=True), labelled("2", "False", 0.8)],
              [silent("3", 0.0, retracted=True), silent("4", 0.2)])
    assert (c.supports.count, c.contradicts.count, c.no_evidence.count, c.sources, c.retracted) == (0, 1, 1, 2, 2)
    assert (c.contradicts.weighted_share, c.no_evidence.weighted_share) == (0.8, 0.2)
    assert c.supports == Share()


def test_no_sources_at_all():
    c = consensus(result([], []))
    assert c == Consensus() and c.sources == 0 and c.percentages(weighted=True) == (0, 0, 0)


def test_sources_that_all_weigh_nothing_have_counts_but_no_weighted_share():
    c = tally([labelled("1", "True", 0.0)], [silent("2", 0.0)])
    assert (c.supports.count, c.no_evidence.count, c.sources) == (1, 1, 2)
    assert c.percentages(weighted=True) == (0, 0, 0) and c.percentages(weighted=False) == (50, 0, 50)


@pytest.mark.parametrize("counts", [(1, 1, 1), (2, 2, 3), (1, 5, 0), (7, 3, 2)])
def test_percentages_add_up_to_100(counts: tuple[int, int, int]):
    labels = ["True"] * counts[0] + ["False"] * counts[1] + ["No Evidence"] * counts[2]
    c = tally([labelled(str(i), lab, 0.1 + i / 7) for i, lab in enumerate(labels)], [])
    assert sum(c.percentages(weighted=True)) == sum(c.percentages(weighted=False)) == 100
