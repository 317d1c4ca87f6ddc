"""Answer splitting and citation parsing."""

from __future__ import annotations

from tools.text.citations import answer_sentences, parse_answer, parse_sentence, render


def test_parse_lists_ranges_and_invalid_numbers():
    p = parse_sentence("Vitamin D did not prevent fractures [1, 3-4; 9].", valid={1, 2, 3, 4})
    assert p.text == "Vitamin D did not prevent fractures."
    assert p.citations == [1, 3, 4] and p.invalid == [9]


def test_citation_only_piece_joins_previous_sentence():
    assert answer_sentences("MMR is safe. [1] It was studied widely [2].") == [
        "MMR is safe. [1]",
        "It was studied widely [2].",
    ]
    parsed = parse_answer("MMR is safe. [1] It was studied widely [2].", valid={1, 2})
    assert [(p.text, p.citations) for p in parsed] == [("MMR is safe.", [1]), ("It was studied widely.", [2])]


def test_decimal_numbers_and_abbreviations_do_not_split():
    parsed = parse_answer("The hazard ratio was 0.93 (e.g. no risk) [1]. Fine [2].", valid={1, 2})
    assert [p.text for p in parsed] == ["The hazard ratio was 0.93 (e.g. no risk).", "Fine."]


def test_render_shows_only_valid_citations():
    parsed = parse_answer("A [1]. B [7]. C [1, 2]", valid={1, 2})
    assert render(parsed) == "A [1]. B. C [1, 2]"


def test_bracketed_non_numbers_are_text():
    p = parse_sentence("The dose [mg/kg] mattered [2].", valid={2})
    assert p.text == "The dose [mg/kg] mattered." and p.citations == [2]
