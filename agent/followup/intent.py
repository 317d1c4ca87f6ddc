"""Requests answered without the LLM: "what are the sources behind sentence 2?" and its variants."""

from __future__ import annotations

import re

_ASKS_SOURCES = re.compile(r"\b(sources?|evidence|cit\w*|behind|support\w*|references?|based)\b", re.IGNORECASE)
_NUMBERED = re.compile(r"\bsentence\s*(?:#|no\.?|number)?\s*([-+]?\d+)\b", re.IGNORECASE)
# "sources of sentence abc" ending the message: a reference that is no number ("evidence on the sentence about
# mice" or "evidence supports a longer prison sentence" are not one)
_NAMED = re.compile(
    r"\b(?:sources?|evidence|citations?|references?)\s+(?:of|for|behind|on|to)\s+(?:the\s+)?"
    r"sentence\s*(?:#|no\.?|number)?\s+([^\W\d_]+)\W*$",
    re.IGNORECASE,
)
MAX_DIGITS = 9
_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def asked_sentence(text: str) -> int | str | None:
    """The answer sentence whose sources the user asks for: its number as written (1-based; 0, negative or too
    large when the user wrote so), the user's words for it when they are no number ("sentence abc") or a number of
    more than MAX_DIGITS digits, or None when the message asks for something else."""
    if not _ASKS_SOURCES.search(text):
        return None
    if match := _NUMBERED.search(text):
        written = match.group(1)  # a number too long to be stored (the checkpoint holds 64-bit integers) stays text
        return int(written) if len(written.lstrip("+-")) <= MAX_DIGITS else written
    if match := _NAMED.search(text):
        word = match.group(1).lower()
        return _WORDS.index(word) + 1 if word in _WORDS else match.group(1)
    return None
