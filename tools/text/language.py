"""The language of a claim, a passage or a follow-up, offline: Lingua (lingua-language-detector, whose language
models ship in its wheel), limited to the languages claimtrace checks claims in. Limiting it, and taking a text as
English unless English is unlikely (``ENGLISH_FLOOR``), keeps English claims English: unrestricted, it read 12 of
HealthFC's 750 English claims and 33 of SciFact dev's 300 as Latin, Welsh and others
(evals/results/language/README.md). A text it cannot place is taken as English, so an English claim goes on exactly
as before."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ENGLISH = "en"
# a text is English unless Lingua gives English less than this: Latin and Greek medical terms make English claims
# read like French ("Macrolides protect against myocardial infarction.": French 0.57, English 0.33), while a claim in
# another language leaves English far lower. 0.15 is the lowest floor that recognises each short non-English claim
# written for evals/language/recognition.py (English 0.13 at most among them), and takes 1 of SciFact's 809 train
# claims for another language
ENGLISH_FLOOR = 0.15
# ISO 639-1 code -> the language's name in English
LANGUAGES = {"en": "English", "de": "German", "es": "Spanish", "fr": "French", "pt": "Portuguese"}


@lru_cache(maxsize=1)
def _detector() -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    chosen = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in LANGUAGES]
    return LanguageDetectorBuilder.from_languages(*chosen).build()


def language_of(text: str) -> str:
    """The ISO 639-1 code of the text's language among LANGUAGES; English when English is not unlikely, or when
    there is nothing to tell by."""
    if not any(ch.isalpha() for ch in text):
        return ENGLISH
    values = _detector().compute_language_confidence_values(text)
    english = next((v.value for v in values if v.language.iso_code_639_1.name.lower() == ENGLISH), 0.0)
    if english >= ENGLISH_FLOOR or not values:
        return ENGLISH
    code = str(values[0].language.iso_code_639_1.name.lower())
    return code if code in LANGUAGES else ENGLISH
