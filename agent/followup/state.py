"""State of one chat thread. Each turn sets `message`; the route decides, one node replies."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from typing_extensions import TypedDict  # pydantic (LangGraph Studio's input schema) needs it on Python < 3.12

Action = Literal["check", "sources", "why", "answer"]


def checks(held: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The thread's checks with ``new`` ones: a check whose id the thread holds replaces it in place (a node that
    amends a check, such as the generated summaries); any other is appended."""
    out = list(held)
    at = {r.get("id"): k for k, r in enumerate(out) if r.get("id")}
    for r in new:
        if r.get("id") in at:
            out[at[r["id"]]] = r
        else:
            out.append(r)
    return out


class ThreadState(TypedDict, total=False):
    message: str  # this turn's user text, already validated (agent.service.validate_claim)
    # this turn checks `message` exactly as typed, asking no router (the chat's "Check my words instead"); every
    # turn's input sets it, so it never carries over to the next turn
    verbatim: bool
    # the earlier checks the user was shown before choosing to check this claim again (agent.earlier): the new
    # check keeps them as its link to the old; like ``verbatim``, every turn's input sets it
    earlier: list[dict[str, Any]]
    # the user's own English for ``message``, a claim in another language whose translation they corrected (the
    # chat's "Correct the English"): checked instead of the LLM's translation; like ``verbatim``, every turn's input
    # sets it
    english: str
    # the LLM's English for ``message``, made while the chat read it as a passage in another language
    # (agent.passage.foreign): when ``message`` is checked as a claim, this English is checked without a second
    # translation; like ``verbatim``, every turn's input sets it
    translation: str
    action: Action
    # the language of this turn's message (agent.translate): a check of a claim in another language checks the
    # English ``query``, and keeps the message as the user's words; a note when no translation could be kept
    language: str
    translation_note: str
    query: str  # the claim to check when action == "check"
    draft: str  # the router's answer from held evidence when action == "answer"
    sentence: int | str  # answer sentence asked about when action == "sources": 1-based, or the word used for it
    results: Annotated[list[dict[str, Any]], checks]  # every check (CheckResult dumps), oldest first
    focus: int  # the index in `results` of the check that follow-ups are about; -1 (or absent): the newest
    # checked passages: {"check": PassageCheck dump, "rows": {row n: its check's index in `results`}}
    passages: Annotated[list[dict[str, Any]], operator.add]
    reply: dict[str, Any]  # what this turn shows: {"kind": "check" | "sources" | "why" | "answer", ...}


def current(state: ThreadState) -> dict[str, Any] | None:
    """The check that follow-ups are about: the one the user opened last (a passage's row), else the newest."""
    results = state.get("results", [])
    focus = state.get("focus", -1)
    if not results:
        return None
    return results[focus] if -len(results) <= focus < len(results) else results[-1]
