"""The "why?" reply's reckoning (agent/judge/reckoning.py) says what its figures mean: the confidence below or at or
above the threshold as it really is, and what that means for the verdict's label; each paper's direction in words,
with no P(claim) or P(about the claim) figure (the JSON keeps the numbers)."""

from __future__ import annotations

import pytest

from agent.judge.reckoning import reckoning, threshold_words
from agent.judge.scoring import NOT_ENOUGH, UNDECIDED, percent
from agent.judge.sources import no_finding_reason
from agent.provenance import RunInfo
from agent.result import CheckResult
from agent.state import SilentSource, SourceAssessment, Verdict


def verdict(label: str, confidence: float, leaning: str | None = None) -> Verdict:
    return Verdict(label=label, score=-0.8, unweighted_score=-0.8, counted_sources=1, confidence=confidence,
                   contradicting=1, leaning=leaning)  # fmt: skip


@pytest.mark.parametrize(
    ("label", "confidence", "leaning", "said"),
    [
        # "Not enough evidence" stands whatever its confidence: the old wording said "at or above it" of 0.07
        (NOT_ENOUGH, 0.07, None, "Confidence 0.07 against the threshold 0.50: below it; the threshold applies only "
         "to a verdict that takes a side or finds a dispute, so “Not enough evidence” stands either way."),
        (NOT_ENOUGH, 0.93, None, "Confidence 0.93 against the threshold 0.50: at or above it; the threshold applies "
         "only to a verdict that takes a side or finds a dispute, so “Not enough evidence” stands either way."),
        (UNDECIDED, 0.41, "Weakly supported", "Confidence 0.41 against the threshold 0.50: below it, so the verdict "
         "is “Cannot decide” rather than “Weakly supported”."),
        ("Generally refuted", 0.81, None, "Confidence 0.81 against the threshold 0.50: at or above it, so the "
         "verdict is “Generally refuted” rather than “Cannot decide”."),
        ("Generally refuted", 0.5, None, "Confidence 0.50 against the threshold 0.50: at or above it, so the "
         "verdict is “Generally refuted” rather than “Cannot decide”."),
        # two decimals would show the two equal: four show which side of it the confidence is
        (UNDECIDED, 0.4996, "Weakly refuted", "Confidence 0.50 (0.4996) against the threshold 0.50: below it, so the "
         "verdict is “Cannot decide” rather than “Weakly refuted”."),
    ],
)
def test_the_threshold_sentence_says_where_the_confidence_is_and_what_that_means(
    label: str, confidence: float, leaning: str | None, said: str
) -> None:
    assert threshold_words(verdict(label, confidence, leaning), 0.5) == said


def test_a_label_the_threshold_does_not_explain_is_not_said_to_follow_from_it() -> None:
    """A check decided at another threshold than the one compared with (one made before the setting changed, whose
    run info does not record it) is not said to follow from it."""
    assert threshold_words(verdict("Generally refuted", 0.55), 0.6) == (
        "Confidence 0.55 against the threshold 0.60: below it, though the check gave “Generally refuted” at the "
        "threshold it ran with."
    )
    assert threshold_words(verdict(UNDECIDED, 0.65, "Weakly refuted"), 0.6).endswith(
        "at or above it, though the check gave “Cannot decide” at the threshold it ran with."
    )


def assessment(doc_id: str, label: str, **extra: object) -> SourceAssessment:
    return SourceAssessment(doc_id=doc_id, label=label, score=-0.66, reputation=0.5, explanation="", **extra)


def test_the_reckoning_says_directions_and_reasons_in_words_against_the_checks_own_threshold() -> None:
    result = CheckResult(
        claim="X causes Y.",
        assessments=[
            assessment("1", "Mostly False", p_claim=0.03, stance_confidence=0.97, judged_by="verifier+llm"),
            assessment("6", "Somewhat True", p_claim=0.7, stance_confidence=0.7, judged_by="verifier"),
            assessment("2", "No Evidence", p_claim=0.52, stance_confidence=0.52),
            assessment("3", "No Evidence", bearing=0.3),
            assessment("4", "False"),
        ],
        silent=[SilentSource(doc_id="5", title="Z", reputation=0.4, bearing=0.02, reason=no_finding_reason(0.02))],
        verdict=verdict("Generally refuted", 0.72),
        run=RunInfo(settings={"judge": {"min_confidence": 0.7}}),  # the threshold the check ran with
    )
    why = reckoning(result, min_confidence=0.5)  # the configured one now
    assert why["confidence"].startswith("Confidence 0.72 against the threshold 0.70: at or above it")
    assert "0.70 would make it “Cannot decide”" in why["change"]
    assert [r["direction"] for r in why["counted"]] == [
        "the LLM is 97% sure it supports the opposite",
        "70% sure it supports the claim",  # P(claim) from a judge other than the LLM: not said to be the LLM's
        "read by the verifier alone",
    ]
    assert [r["why"] for r in why["not_counted"]] == [
        "the LLM cannot tell which way it points: it is only 52% sure it supports the claim",
        "it is 30% likely to bear on the claim, too little to count",
        "The verifier finds no sentence reporting a finding on the claim (it rates the paper 2% likely to bear on "
        "the claim).",
    ]
    shown = str(why)
    assert "P(" not in shown and "probability 0." not in shown
    assert reckoning(result.model_copy(update={"run": RunInfo()}), 0.5)["confidence"].startswith(
        "Confidence 0.72 against the threshold 0.50"  # no threshold on record: the configured one
    )


def test_percentages_are_never_rounded_to_certainty() -> None:
    assert [percent(p) for p in (0.0, 0.001, 0.3, 0.97, 0.999, 1.0)] == [
        "0%", "under 1%", "30%", "97%", "over 99%", "100%",
    ]
    assert no_finding_reason(None) == "The verifier finds no sentence reporting a finding on the claim."


def test_a_source_says_which_reader_read_its_side() -> None:
    from agent.judge.reckoning import direction_words

    assert direction_words(0.9, "verifier+llm") == "the LLM is 90% sure it supports the claim"
    assert direction_words(0.1, "reader") == "the abstract reader is 90% sure it supports the opposite"
    assert direction_words(None, "verifier") == "read by the verifier alone"
