"""State of one chat thread. Each turn sets `message`; the route decides, one node replies."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from typing_extensions import TypedDict  # pydantic (LangGraph Studio's input schema) needs it on Python < 3.12

Action = Literal["check", "sources", "why", "answer"]


class ThreadState(TypedDict, total=False):
    message: str  # this turn's user text, already validated (agent.service.validate_claim)
    action: Action
    query: str  # the claim to check when action == "check"
    draft: str  # the router's answer from held evidence when action == "answer"
    sentence: int | str  # answer sentence asked about when action == "sources": 1-based, or the word used for it
    results: Annotated[list[dict[str, Any]], operator.add]  # every check (CheckResult dumps), oldest first
    reply: dict[str, Any]  # what this turn shows: {"kind": "check" | "sources" | "why" | "answer", ...}
