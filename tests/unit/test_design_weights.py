"""The evidence hierarchy in the verdict: a source's study design scales its weight, the factors are settings, and
a verdict says when every source it counts has a weak design."""

from __future__ import annotations

import pytest

from agent.judge.scoring import reputation, weighted_verdict
from agent.judge.verdict import decide
from agent.settings.app import SettingsError, get_settings
from agent.state import SourceAssessment
from tools.corpus import Abstract
from tools.documents.design import DEFAULT_WEIGHTS

TRIAL = Abstract(doc_id="t", title="A trial", sentences=["Patients were randomly assigned to statins or placebo."])
CELLS = Abstract(doc_id="c", title="Cells", sentences=["Statins were added to cultured hepatocytes in vitro."])
MICE = Abstract(doc_id="m", title="Mice", sentences=["Mice fed statins developed larger plaques."])
FLAT = {design: 1.0 for design in DEFAULT_WEIGHTS}  # every design weighed alike


def assessed(doc: Abstract, label: str, score: float, weights=None, confidence: float = 0.9) -> SourceAssessment:
    weight, inputs = reputation(doc, weights)
    return SourceAssessment(doc_id=doc.doc_id, label=label, score=score, reputation=weight,
                            reputation_inputs=inputs, explanation="", stance_confidence=confidence)


def test_a_trial_outweighs_a_cell_study_that_disagrees():
    flat = [assessed(TRIAL, "Mostly True", 0.66, FLAT), assessed(CELLS, "False", -1.0, FLAT)]
    ranked = [assessed(TRIAL, "Mostly True", 0.66), assessed(CELLS, "False", -1.0)]
    assert ranked[0].reputation == 0.9 and ranked[1].reputation == 0.3
    assert decide(flat, 0, 1.0, 0.0).score < 0 < decide(ranked, 0, 1.0, 0.0).score  # the side changes


def test_equal_weights_of_any_size_give_the_same_label():
    scores = [-0.66, -0.66, -0.66]  # three "Mostly False" sources: FRSC's threshold, that float sums put a hair above
    for weight in (1.0, 0.75, 0.35, 0.3):
        assert weighted_verdict([(s, weight) for s in scores])[0] == "Generally refuted"


def test_the_verdict_names_the_weak_designs_it_rests_on():
    weak = decide([assessed(CELLS, "True", 1.0), assessed(MICE, "Mostly True", 0.66)], 0, 1.0, 0.0)
    assert weak.weak_designs == ["animal", "in_vitro"]
    mixed = decide([assessed(CELLS, "True", 1.0), assessed(TRIAL, "True", 1.0)], 0, 1.0, 0.0)
    assert mixed.weak_designs == []
    # a source with no stance or no weight is not what the verdict rests on
    no_stance = decide([assessed(TRIAL, "No Evidence", 0.0), assessed(MICE, "True", 1.0)], 0, 1.0, 0.0)
    assert no_stance.weak_designs == ["animal"]
    # nor is one labelled No Evidence whose raw score leans: the label decides, as in the verdict's counts
    leaning = decide([assessed(TRIAL, "No Evidence", 0.12), assessed(MICE, "True", 1.0)], 0, 1.0, 0.0)
    assert leaning.counted_sources == 1 and leaning.weak_designs == ["animal"]
    retracted = MICE.model_copy(update={"retracted": True})
    assert decide([assessed(retracted, "True", 1.0), assessed(TRIAL, "True", 1.0)], 0, 1.0, 0.0).weak_designs == []
    # what counts as weak is a setting
    assert decide([assessed(MICE, "True", 1.0)], 0, 1.0, 0.0, weak=["in_vitro"]).weak_designs == []


@pytest.fixture
def fresh_settings():
    get_settings.cache_clear()
    yield get_settings
    get_settings.cache_clear()  # no other test sees this test's variables


def test_the_hierarchy_is_a_setting(monkeypatch, fresh_settings):
    monkeypatch.setenv("DESIGN_WEIGHTS", '{"animal": 0.8}')
    monkeypatch.setenv("WEAK_DESIGNS", '["case_report"]')
    judge = fresh_settings().judge
    assert judge.design_weights == {**DEFAULT_WEIGHTS, "animal": 0.8} and judge.weak_designs == ["case_report"]
    assert reputation(MICE, judge.design_weights)[0] == 0.8
    for bad, why in [('{"dogs": 0.5}', "unknown study design"), ('{"rct": 1.5}', "between 0 and 1")]:
        monkeypatch.setenv("DESIGN_WEIGHTS", bad)
        fresh_settings.cache_clear()
        with pytest.raises(SettingsError, match=why):
            fresh_settings()
