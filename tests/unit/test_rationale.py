"""The rationale selector (agent.judge.rationale): which sentences of a paper are read and shown as its evidence."""

from __future__ import annotations

import json

import pytest

from agent.judge import sources
from agent.judge.rationale import FEATURES, RationaleSelector, get_selector, sentence_features
from agent.state import Evidence
from tools.models.verifier import VerifierResult

CLAIM = "Vitamin D supplements reduce the risk of hip fracture in older adults."
ABSTRACT = [
    "Vitamin D supplements and hip fracture in older adults are a public health concern.",  # background, closest
    "We aimed to determine whether vitamin D reduces fractures.",
    "We enrolled 2,686 adults aged 65 to 85 years in a randomised trial.",
    "p < .05",  # a split fragment
    "Hip fracture was significantly reduced in the vitamin D group (hazard ratio 0.67, 95% CI 0.48-0.93).",
]
# similarities to the claim: the background sentence is the closest, the finding only third
SIMS = [0.82, 0.66, 0.41, 0.10, 0.64]


def test_features_read_position_statistics_and_cues():
    rows = sentence_features(CLAIM, ABSTRACT, SIMS, [0, 1, 4])
    named = [dict(zip(FEATURES, row, strict=True)) for row in rows]
    background, aim, finding = named
    assert background["similarity_rank"] == 0 and finding["similarity_rank"] == 2
    assert background["similarity_below_best"] == 0 and finding["similarity_below_best"] == pytest.approx(-0.18)
    assert finding["last_sentence"] == 1 and finding["position"] == 1 and background["position"] == 0
    assert finding["statistics"] == 1 and background["statistics"] == 0
    assert finding["finding_cue"] == 1 and aim["background_cue"] == 1 and finding["background_cue"] == 0
    assert 0 < finding["claim_words"] < background["claim_words"] <= 1


def test_the_shipped_shortlist_puts_the_finding_above_a_closer_background_sentence():
    selector = get_selector()
    assert selector.shortlist_weights, "agent/judge/rationale_selector.json ships the fitted weights"
    shortlist = selector.shortlist(CLAIM, ABSTRACT, SIMS, k=2, min_chars=20)
    assert [i for i, _ in shortlist][0] == 4
    # by similarity alone the background sentence would come first
    assert RationaleSelector().shortlist(CLAIM, ABSTRACT, SIMS, k=2, min_chars=20)[0][0] == 0


def test_fragments_are_never_shortlisted():
    picked = [i for i, _ in RationaleSelector().shortlist(CLAIM, ABSTRACT, SIMS, k=5, min_chars=20)]
    assert 3 not in picked and len(picked) == 4


def test_without_weights_the_pick_is_the_verifiers_reading():
    assert RationaleSelector().p_rationale(2.0, 0.5, 0.2, 0.3) == pytest.approx(0.7)


def test_the_pick_weighs_the_shortlist_and_the_verifier():
    sel = RationaleSelector(pick_weights=(0.0, 1.0, 1.0, 0.0))
    # equal verifier readings: the better shortlist score wins
    assert sel.p_rationale(2.0, 0.4, 0.1, 0.5) > sel.p_rationale(-2.0, 0.4, 0.1, 0.5)
    # equal shortlist scores: the stronger verifier reading wins
    assert sel.p_rationale(0.0, 0.8, 0.1, 0.1) > sel.p_rationale(0.0, 0.2, 0.1, 0.7)
    # a sentence the shortlist did not score keeps the verifier's reading
    assert sel.p_rationale(None, 0.5, 0.2, 0.3) == pytest.approx(0.7)


def test_a_selector_file_of_the_wrong_shape_is_refused(tmp_path):
    bad = tmp_path / "selector.json"
    bad.write_text(json.dumps({"shortlist_weights": [0.1, 0.2], "pick_weights": [0, 1, 1, 0]}))
    with pytest.raises(ValueError, match="shortlist_weights has 2 values"):
        get_selector.__wrapped__(bad)
    assert get_selector.__wrapped__(tmp_path / "none.json") == RationaleSelector()


def _pair(i: int, score: float, p_nei: float) -> tuple[Evidence, VerifierResult]:
    ev = Evidence(n=1, doc_id="d", title="T", sentence=ABSTRACT[i], sentence_index=i, shortlist_score=score)
    return ev, VerifierResult("supports" if p_nei < 0.5 else "nei", 1 - p_nei, 0.0, p_nei)


def test_a_paper_shows_its_likeliest_sentence_and_a_second_only_when_it_reaches_second_min(monkeypatch):
    sel = RationaleSelector(pick_weights=(0.0, 1.0, 1.0, 0.0), second_min=0.5)
    monkeypatch.setattr(sources, "get_selector", lambda: sel)
    pairs = [_pair(0, -3.0, 0.9), _pair(4, 2.0, 0.2), _pair(1, 0.5, 0.4)]
    shown = sources.shown(pairs, 2)
    assert [ev.sentence_index for ev, _ in shown] == [4, 1]  # P 0.97, then P 0.72 >= 0.5; the background never
    weak = [_pair(0, -3.0, 0.9), _pair(4, -1.0, 0.8)]
    # the first is always shown, however weak; a second below second_min is not
    assert [ev.sentence_index for ev, _ in sources.shown(weak, 2)] == [4]


def test_the_shortlist_score_reaches_the_pick_through_the_graph(make_deps, monkeypatch):
    """select_evidence scores each candidate and assess's pick reads that score, in a real run of the claim graph."""
    from agent.service import run_claim
    from tests.conftest import decompose_rule, direction_rules

    seen: list[float | None] = []

    class Recording(RationaleSelector):
        def p_rationale(self, shortlist_score, p_supports, p_contradicts, p_nei):  # type: ignore[no-untyped-def]
            seen.append(shortlist_score)
            return super().p_rationale(shortlist_score, p_supports, p_contradicts, p_nei)

    shipped = get_selector()
    monkeypatch.setattr(sources, "get_selector", lambda: Recording(shipped.shortlist_weights, shipped.pick_weights))
    deps = make_deps(
        [
            decompose_rule(["Is MMR vaccination linked to autism?"], "The MMR vaccine does not cause autism."),
            *direction_rules("The MMR vaccine causes autism.", supports=False),
            {"when": "<evidence>", "reply": "Large studies found no link between MMR and autism [1]."},
        ],
        verifier_rules={"not associated": "contradicts", "no relationship": "contradicts"},
    )
    run_claim("The MMR vaccine causes autism.", deps)
    assert seen and all(isinstance(s, float) for s in seen)
