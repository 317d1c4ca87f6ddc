"""Requests answered without the LLM: "what are the sources behind sentence 2?" and its variants."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"\bsentence\s*(?:#|no\.?|number)?\s*(\d{1,3})\b", re.IGNORECASE)
_ASKS_SOURCES = re.compile(r"\b(sources?|evidence|cit\w*|behind|support\w*|references?|based)\b", re.IGNORECASE)


def asked_sentence(text: str) -> int | None:
    """The 1-based answer sentence whose sources the user asks for, or None for any other message."""
    match = _SENTENCE.search(text)
    if match and _ASKS_SOURCES.search(text):
        return int(match.group(1))
    return None
