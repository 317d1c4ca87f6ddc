"""An answer sentence as the chat and the terminal show it: the LLM's translation where the view speaks another
language and the sentence has one; a sentence that quotes a paper with the words around the quote in the view's
language (agent.answer.compose.QUOTE_FRAMES, said again by tools.text.i18n.said) and the quote in the paper's words;
else the sentence as it was written and checked. Plain text: the caller escapes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.answer.compose import QUOTED
from tools.text.i18n import said


def shown_sentence(s: Mapping[str, Any]) -> str:
    """The text of answer sentence ``s`` (a result dump's sentence) in the view."""
    if s.get("translation"):
        return str(s["translation"])
    text = str(s["text"])
    return said(text) if QUOTED.match(text.strip()) else text
