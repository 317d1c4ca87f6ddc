"""Decompose (RAG-fusion; the opposite claim as in FRSC): the claim -> search questions plus the opposite claim.
When the LLM fails, the claim and its rule-made negation are searched and the later steps do without the LLM."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

import prompts
from agent.calls import chat, parse_json_object
from agent.llm import LLMUnavailableError
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Query


def _clean(items: Any, limit: int) -> list[str]:
    if not isinstance(items, list):
        return []
    out: list[str] = []
    for item in items:
        text = (item.get("question") or item.get("prompt") or "") if isinstance(item, dict) else item
        if isinstance(text, str) and text.strip() and text.strip() not in out:
            out.append(text.strip())
    return out[:limit]


def fallback_opposite(claim: str) -> str:
    return f"It is not true that {claim[0].lower()}{claim[1:]}" if claim else claim


@timed("decompose")
def decompose(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    claim = state["claim"]
    settings = runtime.context.settings
    try:
        reply, usage = chat(
            runtime.context.llm,
            prompts.load("decompose_system"),
            prompts.render("decompose", claim=claim),
            json_mode=True,
            max_tokens=settings.llm.max_tokens,
        )
    except LLMUnavailableError as e:
        queries = [Query(text=claim, kind="claim"), Query(text=fallback_opposite(claim), kind="opposite")]
        note = f"{e}: searched with the claim and its negation, and the answer quotes the evidence"
        return {"queries": queries, "llm_error": str(e), "notes": [note]}
    obj = parse_json_object(reply) or {}
    questions = _clean(obj.get("questions"), settings.retrieval.max_questions)
    opposite = obj.get("opposite_claim")
    notes: list[str] = []
    if not questions:
        notes.append("decompose: the model gave no usable questions; searching with the claim and its negation")
    if not isinstance(opposite, str) or not opposite.strip() or opposite.strip() == claim:
        opposite = fallback_opposite(claim)
    queries = [Query(text=claim, kind="claim")]
    queries += [Query(text=q, kind="question") for q in questions if q != claim]
    queries.append(Query(text=opposite.strip(), kind="opposite"))
    return {"queries": queries, "usage": usage, "notes": notes}
