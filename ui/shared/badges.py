"""Badges beside a source, for the chat and the CLI: its abstract's study design (tools.documents.design.DESIGN_NAMES),
"RETRACTED", and each published notice ("erratum", "expression of concern"). The design and "RETRACTED" are in the
language the view speaks (tools.text.i18n); a notice is shown as its source wrote it.

A source dump from before designs were recorded has no "design" key and gets no design badge. Notices come with the
abstract (a corpus file, a live source), so they are untrusted text: `md` in the chat, `plain` in the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tools.documents.design import DESIGN_NAMES
from tools.text.i18n import t
from ui.shared.untrusted import md, plain

RETRACTED = "RETRACTED"


def badges(src: Mapping[str, Any]) -> list[str]:
    """The text of each badge of a source: RETRACTED, its notices, its design."""
    out = [t(RETRACTED)] if src.get("retracted") else []
    out += [str(notice) for notice in src.get("notices") or []]
    if (design := src.get("design")) is not None:
        out.append(t(DESIGN_NAMES[design]) if design in DESIGN_NAMES else str(design))
    return out


def badges_md(src: Mapping[str, Any]) -> str:
    """The badges as chat Markdown, joined by " · " ("" when there are none): a retraction and each notice behind a
    warning sign, the design as a chip (a code span: the design names hold no backtick; any other text is escaped)."""
    shown = [f"⚠️ **{t(RETRACTED)}**"] if src.get("retracted") else []
    shown += [f"⚠️ {md(notice)}" for notice in src.get("notices") or []]
    if (design := src.get("design")) is not None:
        shown.append(f"`{t(DESIGN_NAMES[design])}`" if design in DESIGN_NAMES else md(design))
    return " · ".join(shown)


def badges_plain(src: Mapping[str, Any]) -> str:
    """The badges as terminal text: "[RETRACTED] [erratum] [cohort study]" ("" when there are none)."""
    return " ".join(f"[{plain(text)}]" for text in badges(src))

