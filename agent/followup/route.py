"""Route one turn. No LLM for "sources behind sentence N", for "why this verdict?", for the first message of a
thread (a claim to check), for a message that states a new claim (agent.followup.intent.states_claim: checked as
typed, never rewritten) or for one the user asks to have checked as typed (``verbatim``); otherwise the model
decides between answering from the evidence held and searching again: native tool calls with OpenAI-style models,
a JSON object with the embedded model (the local GGUF model emits no native tool calls)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

import prompts
from agent.answer.text import evidence_block
from agent.followup.deps import deps_of
from agent.followup.intent import asked_sentence, asks_why, states_claim
from agent.followup.state import ThreadState, current
from agent.llm.calls import chat, parse_json_object, with_tools
from agent.result import CheckResult
from agent.state import Deps


class AnswerFromEvidence(BaseModel):
    """Answer the follow-up from the numbered evidence already held; every sentence ends with its [n]."""

    answer: str = Field(description="1 to 3 sentences, each citing evidence numbers like [1] or [2, 3]")


class SearchAgain(BaseModel):
    """Check a new claim or question, because the evidence held does not answer the follow-up."""

    claim: str = Field(description="one short scientific claim or question to check")


def prompt(result: CheckResult, message: str, native_tools: bool, max_title_chars: int) -> tuple[str, str]:
    values = {
        "claim": result.claim,
        "verdict": result.verdict.describe() if result.verdict else "none",
        "answer": result.answer,
        "evidence": evidence_block(result.sources, max_title_chars) or "(none)",
        "message": message,
        "format": prompts.part("route_format_tools" if native_tools else "route_format_json"),
    }
    return prompts.load("route_system"), prompts.render("route", **values)


def decide_with_tools(deps: Deps, system: str, user: str) -> dict[str, Any]:
    msg = with_tools(deps.llm, [AnswerFromEvidence, SearchAgain], system, user, "routing a follow-up")
    for call in msg.tool_calls:
        if call["name"] == "AnswerFromEvidence":
            return {"action": "answer", "answer": call["args"].get("answer", "")}
        if call["name"] == "SearchAgain":
            return {"action": "search", "claim": call["args"].get("claim", "")}
    return parse_json_object(str(msg.content)) or {}


def decide(deps: Deps, result: CheckResult, message: str) -> dict[str, Any]:
    native = deps.settings.llm.resolved_provider() == "openai"
    system, user = prompt(result, message, native, deps.settings.answer.max_title_chars)
    if native:
        return decide_with_tools(deps, system, user)
    reply, _ = chat(deps.llm, system, user, json_mode=True, max_tokens=deps.settings.llm.max_tokens)
    return parse_json_object(reply) or {}


def route(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    message = state["message"]
    turn: dict[str, Any] = {"action": "check", "query": message, "draft": "", "sentence": 0}
    if state.get("verbatim"):  # the user asked for these words to be checked, not the router's reading of them
        return turn
    held = current(state)
    sentence = asked_sentence(message)
    if sentence is not None:  # before any check too: the sources node says there is no answer yet
        return {**turn, "action": "sources", "sentence": sentence}
    if held is None:
        return turn
    if asks_why(message):  # the reckoning is the check's own figures: no LLM
        return {**turn, "action": "why"}
    if states_claim(message):  # a new claim: a new check of exactly what the user typed
        return turn
    choice = decide(deps_of(runtime), CheckResult.model_validate(held), message)
    if choice.get("action") == "answer" and str(choice.get("answer", "")).strip():
        return {**turn, "action": "answer", "draft": str(choice["answer"]).strip()}
    query = str(choice.get("claim") or "").strip()
    return {**turn, "query": query or message}
