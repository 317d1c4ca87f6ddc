"""Quantities in words (tools.text.quantities): what a translation of a claim or an answer sentence must keep beside
its digits."""

from __future__ import annotations

import pytest

from tools.text.quantities import quantities, same_quantities


@pytest.mark.parametrize(
    ("english", "other", "language"),
    [
        ("One third of patients improved.", "Ein Drittel der Patienten besserte sich.", "de"),
        ("Half of the mice died in the third week.", "La mitad de los ratones murió en la tercera semana.", "es"),
        ("Two of the four trials found 3 billion copies.", "Deux des quatre essais ont trouvé 3 milliards de copies.",
         "fr"),
        ("Costs rose by two billion.", "Los costes subieron en dos mil millones.", "es"),
        ("Thousands of cases, two million in all.", "Milhares de casos, dois milhões no total.", "pt"),
    ],
)
def test_a_faithful_translation_keeps_its_quantities(english: str, other: str, language: str):
    assert same_quantities(english, other, language)
    assert quantities(english, "en") == quantities(other, language)


@pytest.mark.parametrize(
    ("english", "other", "language"),
    [
        ("One third of patients improved.", "Ein Viertel der Patienten besserte sich.", "de"),
        ("493 per million population.", "493 pro Milliarde Menschen.", "de"),
        ("The debt reached two billion.", "Die Schulden erreichten zwei Billionen.", "de"),  # a German trillion
        ("Costs rose by two billion.", "Los costes subieron en dos millones.", "es"),
        ("Three of the four trials.", "Drei der fünf Studien.", "de"),
        ("Half of the mice died.", "Les souris sont mortes.", "fr"),  # a quantity dropped
        ("The mice died.", "La moitié des souris sont mortes.", "fr"),  # a quantity added
    ],
)
def test_a_changed_dropped_or_added_quantity_is_told(english: str, other: str, language: str):
    assert not same_quantities(english, other, language)


def test_each_language_counts_its_own_words_once_and_a_phrase_as_one_quantity():
    assert quantities("Dos mil millones de dosis, tres tercios.", "es") == {"2": 1, "10^9": 1, "3": 1, "1/3": 1}
    assert quantities("Dos mil millones de dosis.", "de") == {}  # Spanish words are no German quantity


def test_articles_and_words_of_another_meaning_carry_no_quantity():
    assert not quantities("Ein Patient in einem Medium; un patient; um paciente.", "de")
    assert not quantities("El medio de cultivo y la media de edad.", "es")  # a culture medium, a mean
    assert quantities("Die Hälfte, halbiert, innerhalb", "de") == {"1/2": 2}  # "innerhalb" is no half
