"""A result's notes in a reader's words, for the chat and the terminal: a pipeline node starts the notes it adds with
its own name (agent.graph.NODE_NAMES: "assess: 2 retrieved ...", "judge_sources: ..."), which other code reads and the
JSON keeps; a person reads the note without it. Plain text: the caller escapes it (``md`` in the chat, ``plain`` in
the terminal)."""

from __future__ import annotations

import re

from tools.text.i18n import said

NODES = (
    "claim_queries", "retrieve", "fuse", "rerank", "select_evidence", "context", "assess", "verdict", "judge_sources",
    "decompose", "reformulate", "answer", "verify", "correct",
)  # fmt: skip
# the steps outside the graph that name themselves the same way: the generated summaries and the translations
WRITERS = ("supplement", "translate", "translation")
NODE_PREFIX = re.compile(rf"^(?:{'|'.join((*NODES, *WRITERS))}): ")

# a setting named in brackets, with or without its value: "(DIRECTION_SECONDS=8)", "(LLM_TIMEOUT)"; the terminal and
# the JSON keep it for whoever runs claimtrace, the chat's reader is not asked to know it
SETTING = re.compile(r" ?\([A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=[^()]*)?\)")


def note_text(note: str, settings: bool = False) -> str:
    """A note in a reader's words: without the name of the pipeline node that added it, in the spoken language
    (``said``: a note is written in English from catalog templates), starting with a capital; the settings it names
    are kept only with ``settings`` (the terminal's reader runs claimtrace and sets them)."""
    text = said(NODE_PREFIX.sub("", note, count=1))
    if not settings:
        text = SETTING.sub("", text)
    return text[:1].upper() + text[1:]
