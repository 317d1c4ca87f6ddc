"""Decompose (RAG-fusion; the opposite claim as in FRSC): the LLM's search questions and its opposite claim, added to
the claim queries already searched. The pipeline then searches again with them and replaces the provisional verdict.
When the LLM fails, the check goes on with what the claim queries found and the later steps do without the LLM."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

import prompts
from agent.llm.calls import chat, parse_json_object
from agent.llm.client import LLMUnavailableError
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Query
from tools.text.i18n import written


def _clean(items: Any, limit: int) -> list[str]:
    if not isinstance(items, list):
        return []
    out: list[str] = []
    for item in items:
        text = (item.get("question") or item.get("prompt") or "") if isinstance(item, dict) else item
        if isinstance(text, str) and text.strip() and text.strip() not in out:
            out.append(text.strip())
    return out[:limit]


@timed("decompose")
def decompose(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    claim = state["claim"]
    settings = runtime.context.settings
    asked = list(state.get("queries", [Query(text=claim, kind="claim")]))
    try:
        reply, usage = chat(
            runtime.context.llm,
            prompts.load("decompose_system"),
            prompts.render("decompose", claim=claim),
            json_mode=True,
            max_tokens=settings.llm.max_tokens,
        )
    except LLMUnavailableError as e:
        note = written("{error}: searched with the claim and its negation, and the answer quotes the evidence", error=e)
        return {"questions_asked": True, "llm_error": str(e), "notes": [note]}
    obj = parse_json_object(reply) or {}
    known = {q.text for q in asked}
    questions = [q for q in _clean(obj.get("questions"), settings.retrieval.max_questions) if q not in known]
    notes: list[str] = []
    if not questions:
        notes.append("decompose: " + written("the model gave no usable questions; the claim and its negation were "
                                             "searched"))
    queries = [*asked, *(Query(text=q, kind="question") for q in questions)]
    opposite = obj.get("opposite_claim")
    if isinstance(opposite, str) and opposite.strip() and opposite.strip() not in known | set(questions):
        queries.append(Query(text=opposite.strip(), kind="opposite"))
    return {"queries": queries, "questions_asked": True, "usage": usage, "notes": notes}
