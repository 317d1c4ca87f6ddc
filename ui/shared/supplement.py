"""How every view labels a paper's generated summary (agent.answer.supplement; JSON key ``supplement``): the chat's
sources and side panel, the terminal and the exports say the same words, so that a reader never takes the LLM's
summary for the paper's own sentence, nor for the neighbouring sentences the paper itself gives (agent.nodes.context).
Each view escapes the text its own way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

GENERATED = "Generated summary of the paper (written by the LLM from the whole abstract, checked against it)"
NONE = "No generated summary"


def generated(paper: Sequence[Mapping[str, Any]]) -> tuple[str, str] | None:
    """A paper's generated summary as (label, text): the summary, or why it has none; None before one was asked
    for (a check made with GENERATED_CONTEXT off, or whose summary is still being written)."""
    src = paper[0]
    if src.get("supplement"):
        return GENERATED, str(src["supplement"])
    if src.get("supplement_note"):
        return NONE, str(src["supplement_note"])
    return None
