"""The abstract around the evidence sentences, as the judge's gate may read it (agent.judge.direction.in_context)."""

from __future__ import annotations

from agent.judge.direction import in_context

SENTENCES = ["BACKGROUND We asked whether statins protect.", "METHODS A cohort of 4,000 adults.",
             "RESULTS Statin use was not associated with fewer infarctions.", "CONCLUSIONS No protective effect.",
             "A long closing remark about further work that the study suggests in great detail and at length."]


def test_a_short_abstract_is_read_whole() -> None:
    text = in_context("Statins and MI", SENTENCES, [2], max_chars=2000)
    assert text.startswith("Statins and MI [the whole abstract]: BACKGROUND")
    assert all(s in text for s in SENTENCES)


def test_a_long_abstract_keeps_the_evidence_and_its_nearest_neighbours_in_order() -> None:
    text = in_context("Statins and MI", SENTENCES, [2], max_chars=150)
    body = text.split(": ", 1)[1]
    assert body == " ".join(SENTENCES[1:4])
    assert "[part of the abstract, sentences 2 to 4 of 5]" in text


def test_the_evidence_is_kept_even_when_it_alone_is_longer_than_the_limit() -> None:
    text = in_context("T", SENTENCES, [4], max_chars=10)
    assert text.endswith(SENTENCES[4]) and SENTENCES[3] not in text
