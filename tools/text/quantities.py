"""Quantities written in words, in the five languages a claim may come in: the small numbers (two to ten), the
fractions (a half, a third, a quarter, with their ordinals) and the magnitudes (thousand to trillion).

A translation must keep them as it keeps its digits (agent.translate): the embedded LLM turns "one third" into
"ein Viertel" and "493 per million" into "493 pro Milliarde", and neither changes a digit. The magnitudes follow
each language's own scale: German "Milliarde", French "milliard" and Spanish "mil millones" are the English billion;
German and French "Billion" and Spanish "billón" are the English trillion. Words that are also articles ("ein",
"un", "um") or that mean something else in science (Spanish "medio": a culture medium, "media": a mean) are left
out, so a quantity they carry is not compared."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

# each language's words for a quantity; "-" joins the words of a phrase, read before its single words
_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "2": {"en": ("two",), "de": ("zwei",), "es": ("dos",), "fr": ("deux",), "pt": ("dois", "duas")},
    "3": {"en": ("three",), "de": ("drei",), "es": ("tres",), "fr": ("trois",), "pt": ("tres",)},
    "4": {"en": ("four",), "de": ("vier",), "es": ("cuatro",), "fr": ("quatre",), "pt": ("quatro",)},
    "5": {"en": ("five",), "de": ("funf",), "es": ("cinco",), "fr": ("cinq",), "pt": ("cinco",)},
    "6": {"en": ("six",), "de": ("sechs",), "es": ("seis",), "fr": ("six",), "pt": ("seis",)},
    "7": {"en": ("seven",), "de": ("sieben",), "es": ("siete",), "fr": ("sept",), "pt": ("sete",)},
    "8": {"en": ("eight",), "de": ("acht",), "es": ("ocho",), "fr": ("huit",), "pt": ("oito",)},
    "9": {"en": ("nine",), "de": ("neun",), "es": ("nueve",), "fr": (), "pt": ("nove",)},  # French "neuf": new
    "10": {"en": ("ten",), "de": ("zehn",), "es": ("diez",), "fr": ("dix",), "pt": ("dez",)},
    "1/2": {"en": ("half", "halves", "halved"), "de": ("halfte", "halb", "halbe", "halben", "halber", "halbes",
                                                    "halbiert"),
            "es": ("mitad",), "fr": ("moitie", "demi", "demie"), "pt": ("metade",)},
    "1/3": {"en": ("third", "thirds"), "de": ("drittel", "dritte", "dritten", "dritter", "drittes"),
            "es": ("tercio", "tercios", "tercer", "tercera", "tercero"), "fr": ("tiers", "troisieme", "troisiemes"),
            "pt": ("terco", "tercos", "terceiro", "terceira")},
    "1/4": {"en": ("quarter", "quarters", "fourth"), "de": ("viertel", "vierte", "vierten", "vierter", "viertes"),
            "es": ("cuarto", "cuarta", "cuartos"), "fr": ("quart", "quarts", "quatrieme"),
            "pt": ("quarto", "quarta", "quartos")},
    "10^3": {"en": ("thousand", "thousands"), "de": ("tausend", "tausende", "tausenden"), "es": ("mil", "miles"),
             "fr": ("mille", "millier", "milliers"), "pt": ("mil", "milhares")},
    "10^6": {"en": ("million", "millions"), "de": ("million", "millionen"), "es": ("millon", "millones"),
             "fr": ("million", "millions"), "pt": ("milhao", "milhoes")},
    "10^9": {"en": ("billion", "billions"), "de": ("milliarde", "milliarden"),
             "es": ("mil-millones", "millardo", "millardos"), "fr": ("milliard", "milliards"),
             "pt": ("bilhao", "bilhoes", "mil-milhoes")},
    "10^12": {"en": ("trillion", "trillions"), "de": ("billion", "billionen"), "es": ("billon", "billones"),
              "fr": ("billion", "billions"), "pt": ("trilhao", "trilhoes")},
}
_LOOKUP: dict[str, dict[str, str]] = {}
for _quantity, _by_language in _WORDS.items():
    for _language, _spellings in _by_language.items():
        for _spelling in _spellings:
            _LOOKUP.setdefault(_language, {})[_spelling] = _quantity


def _plain_words(text: str) -> list[str]:
    """The words of ``text``, lower case and without accents ("Hälfte": "halfte", "milhões": "milhoes")."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    return re.findall(r"[a-z]+", "".join(c for c in folded if not unicodedata.combining(c)).replace("ß", "ss"))


def quantities(text: str, language: str) -> Counter[str]:
    """The quantities ``text`` writes in words in ``language`` (a code of tools.text.language.LANGUAGES), counted;
    a two-word phrase ("mil millones") counts once, as its quantity."""
    lookup = _LOOKUP.get(language, {})
    found: Counter[str] = Counter()
    ws = _plain_words(text)
    k = 0
    while k < len(ws):
        pair = f"{ws[k]}-{ws[k + 1]}" if k + 1 < len(ws) else ""
        if pair in lookup:
            found[lookup[pair]] += 1
            k += 2
            continue
        if ws[k] in lookup:
            found[lookup[ws[k]]] += 1
        k += 1
    return found


def same_quantities(english: str, other: str, language: str) -> bool:
    """Whether ``other``, in ``language``, writes in words the quantities the English ``english`` does: each as
    often, none added."""
    return quantities(english, "en") == quantities(other, language)
