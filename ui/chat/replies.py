"""The chat's replies to a follow-up, as Markdown: the exact sources behind one answer sentence, and an answer from
the evidence the thread already holds (flagged, and translated, like the main answer: ui.chat.render)."""

from __future__ import annotations

from typing import Any

from tools.text.i18n import t
from ui.chat.render import checked_english, cite, corrections_line, note_line, papers_lines, sentence_line
from ui.shared.untrusted import md


def sentence_sources_markdown(reply: dict[str, Any]) -> str:
    """The exact source sentences behind one answer sentence, each after the sentence before it."""
    if reply.get("error"):
        return f"⚠️ {md(reply['error'])}"
    head = t("**Sentence {n}:** {text}", n=reply["sentence"], text=cite(reply["text"], reply["citations"]))
    if not reply["sources"]:
        return f"{head}\n\n" + t("This sentence cites no source.")
    return f"{head}\n\n" + t("It cites:") + "\n" + papers_lines(reply["sources"])


def followup_markdown(reply: dict[str, Any]) -> str:
    """An answer from the evidence already held, flagged like the main answer; translated, its English sentences as
    checked follow it."""
    lines = "\n".join(sentence_line(i, s) for i, s in enumerate(reply["sentences"], start=1))
    english = checked_english(reply["sentences"])
    changed = corrections_line(reply.get("corrections", []))
    held = t("_Answered from the {n} source sentence(s) already in this thread._", n=reply["evidence_count"])
    notes = [note_line(note) for note in reply.get("notes", [])]
    return "\n\n".join(p for p in (lines, english, changed, held, *notes) if p)
