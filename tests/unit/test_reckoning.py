"""The verdict in words (agent/judge/reckoning.py): written from the verdict's own figures, so the answer's first
sentence states the badge's label and the papers on each side, whatever the verdict."""

from __future__ import annotations

import itertools

from agent.judge.reckoning import verdict_statement
from agent.judge.scoring import GRADES, NOT_ENOUGH, UNDECIDED
from agent.judge.verdict import decide
from agent.state import SourceAssessment, Verdict


def test_every_verdict_the_rule_can_give_is_stated_as_its_badge_says() -> None:
    labels = [g for g, _ in GRADES]
    seen = set()
    for grades in itertools.product(labels, repeat=3):
        for confidence in (0.3, 0.9):
            assessed = [
                SourceAssessment(doc_id=str(k), label=g, score=0.0, reputation=1.0, explanation="",
                                 stance_confidence=confidence)
                for k, g in enumerate(grades)
            ]  # fmt: skip
            v = decide(assessed, silent=1, no_stance=0.6, min_confidence=0.5)
            text = verdict_statement(v, 0.5, read=4)
            seen.add(v.label)
            assert text.startswith(f"{v.label}:") or text.startswith(f"{v.label} (confidence {v.confidence:.2f})")
            if v.label != NOT_ENOUGH:
                assert f"{v.supporting} " in text and f" and {v.contradicting} contradict" in text
    assert len(seen) >= 8  # all seven verdict labels and "Cannot decide" were reached


def test_cannot_decide_says_which_way_it_leans_and_the_threshold() -> None:
    v = Verdict(label=UNDECIDED, leaning="Weakly refuted", score=-0.4, unweighted_score=-0.4, confidence=0.42,
                supporting=0, contradicting=1, irrelevant=3)  # fmt: skip
    assert verdict_statement(v, 0.5, read=4) == (
        "Cannot decide: the evidence leans towards “weakly refuted”, but its confidence (0.42) is below the 0.50 a "
        "verdict needs; 0 papers support the claim and 1 contradicts it; 3 more bear on neither side."
    )


def test_weak_evidence_says_why_it_is_weak() -> None:
    v = Verdict(label="Weakly supported", score=0.33, unweighted_score=0.33, confidence=0.7, supporting=1,
                weak_designs=["animal"])  # fmt: skip
    text = verdict_statement(v, 0.5, read=1)
    assert text.startswith("Weakly supported (confidence 0.70): 1 paper supports the claim and 0 contradict it.")
    assert "weighted grade is +0.33, short of the ±0.66" in text
    assert text.endswith("Every paper it counts is one of the animal studies, so it rests on indirect evidence.")


def test_not_enough_evidence_says_what_was_read() -> None:
    v = Verdict(label=NOT_ENOUGH, score=0, unweighted_score=0, confidence=0.8, irrelevant=5)
    assert verdict_statement(v, 0.5, read=5).startswith("Not enough evidence: 5 papers were read, and none of them")
    nothing = verdict_statement(v, 0.5, read=0)
    assert nothing == "Not enough evidence: the search found no paper that addresses the claim."
