"""The input rules every claim and chat message goes through (agent.service.validate_claim): what is refused and with
which sentence, what is cleaned, what is checked with a note."""

from __future__ import annotations

import pytest

from agent.service import InputError, validate_claim

LIMIT = 2000


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("", "the claim is empty; type a scientific claim such as", id="empty"),
        pytest.param("\u200e\u200f \u2060", "the claim is empty", id="only_marks"),
        pytest.param("a" * (LIMIT + 1), f"the claim is {LIMIT + 1} characters long; the limit is {LIMIT}", id="2001"),
        pytest.param("fact " * 200_000, "the claim is 1000000 characters long; the limit is 2000", id="1mb"),
        pytest.param("x\udc80y", "not valid UTF-8", id="lone_surrogate"),
        pytest.param("a\x7fb", "binary control characters", id="delete_character"),
        pytest.param("🧬🦠", "the claim has no words", id="emoji"),
        pytest.param("www.example.org/paper?id=3", "a link alone cannot be checked", id="www_link"),
        pytest.param("<https://example.org/x>", "a link alone cannot be checked", id="bracketed_link"),
        pytest.param("https://dx.doi.org/10.1000/xyz123", "a DOI or PubMed id names a paper", id="doi_link"),
        pytest.param("PMC7096066", "a DOI or PubMed id names a paper", id="pmcid"),
        pytest.param("arXiv: 2003.12345", "a DOI or PubMed id names a paper", id="arxiv"),
    ],
)
def test_refused_with_one_sentence(text: str, reason: str):
    with pytest.raises(InputError) as refused:
        validate_claim(text, LIMIT)
    message = str(refused.value)
    assert reason in message and "\n" not in message


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        pytest.param("Vitamin\u00ad D\u200b reduces\u2060 fractures.", "Vitamin D reduces fractures.", id="invisible"),
        pytest.param("\u202aVitamin D\u202c reduces \u2067fractures\u2069.", "Vitamin D reduces fractures.", id="bidi"),
        pytest.param("See https://example.org: vitamin D reduces fractures.", None, id="link_inside_a_claim"),
        pytest.param("Vitamin D (doi:10.1000/xyz) reduces fractures.", None, id="doi_inside_a_claim"),
        pytest.param("<b>Vitamin D</b> reduces `fractures`; DROP TABLE x; --", None, id="markup_kept_as_typed"),
    ],
)
def test_accepted(text: str, claim: str | None):
    assert validate_claim(text, LIMIT) == (claim or text, [])


def test_question_is_accepted_with_a_note():
    claim, notes = validate_claim("Does vitamin D reduce fractures ?", LIMIT)
    assert claim == "Does vitamin D reduce fractures ?" and notes and "reads as a question" in notes[0]


def test_right_to_left_text_keeps_its_direction_marks():
    text = "فيتامين د يقلل الكسور" + "\u200f\u061f"  # Arabic, a right-to-left mark, the Arabic question mark
    claim, notes = validate_claim(text, LIMIT)
    assert claim == text and len(notes) == 2  # a question (Arabic question mark) in another language


def test_a_pasted_passage_is_checked_with_a_note_naming_its_findings():
    text = "Coffee lowers the risk of gout in men. Tea had no effect on gout. We aimed to study drinks."
    claim, notes = validate_claim(text, LIMIT)
    assert claim == text and notes == [
        "this text states 2 findings and is checked as one claim, which blurs them: check them one at a time, or "
        "each on its own with `claimtrace check-text`"
    ]
    assert validate_claim("Coffee lowers the risk of gout in men. We aimed to study it.", LIMIT)[1] == []
