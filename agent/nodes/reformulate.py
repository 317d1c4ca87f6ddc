"""Reformulate: when the verdict rests on too little (no source bears on the claim with enough confidence, or one
source alone), search again as a researcher would, with other names for the intervention and the outcome or a
broader population. The LLM decides whether a new query is worth it: native tool calls with OpenAI-style models, a
JSON object with the embedded model (the local GGUF model emits no native tool calls). The new queries go back
through retrieve (local index and live sources); the round and its queries are said in the notes and shown as a
step in the chat. At most ``SEARCH_ROUNDS`` rounds per check."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

import prompts
from agent.llm.calls import chat, parse_json_object, usage_of, with_tools
from agent.llm.client import LLMUnavailableError
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Query, Usage, Verdict
from tools.text.i18n import written

MAX_QUERIES = 3
MAX_QUERY_WORDS = 25
# Three queries of at most 15 words fit in about 90 tokens of JSON. The small embedded model tends to run on with a
# long list; its reply is cut here (every token is waited for) and the complete queries before the cut are kept.
MAX_REPLY_TOKENS = 90
_QUERY_LIST = re.compile(r'"queries"\s*:\s*\[(.*)', re.S)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"\s*[,\]]')


class SearchAgain(BaseModel):
    """Search the literature again with new queries that could find what the first search missed."""

    queries: list[str] = Field(description="1 to 3 new search queries, each at most 15 words")


class StopSearching(BaseModel):
    """No new query could find anything the searches so far missed."""




def found(verdict: Verdict | None) -> str:
    if verdict is None or verdict.counted_sources == 0:
        return "no source that bears on the claim"
    if verdict.counted_sources == 1:
        return "a single source that bears on the claim"
    return f"{verdict.counted_sources} sources, none of them confident"


def new_queries(raw: Any, searched: Sequence[str]) -> list[str]:
    """The LLM's queries, cleaned: strings, not already searched, not too long, each once, at most three."""
    if not isinstance(raw, list):
        return []
    seen = {s.casefold() for s in searched}
    out: list[str] = []
    for item in raw:
        text = " ".join(item.split()) if isinstance(item, str) else ""
        if text and len(text.split()) <= MAX_QUERY_WORDS and text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out[:MAX_QUERIES]


def read_reply(reply: str) -> dict[str, Any]:
    """The JSON choice; a reply cut inside its query list keeps the queries completed before the cut."""
    obj = parse_json_object(reply)
    if obj is not None:
        return obj
    listed = _QUERY_LIST.search(reply)
    if listed is None:
        return {}
    queries = [json.loads(f'"{m.group(1)}"') for m in _STRING.finditer(listed.group(1))]
    return {"action": "search", "queries": queries} if queries else {}


def ask_with_tools(deps: Deps, system: str, user: str) -> tuple[dict[str, Any], Usage]:
    msg = with_tools(deps.llm, [SearchAgain, StopSearching], system, user, "planning another search")
    for call in msg.tool_calls:
        if call["name"] == "SearchAgain":
            return {"action": "search", "queries": call["args"].get("queries", [])}, usage_of(msg)
        if call["name"] == "StopSearching":
            return {"action": "stop"}, usage_of(msg)
    return parse_json_object(str(msg.content)) or {}, usage_of(msg)


def plan(deps: Deps, claim: str, verdict: Verdict | None, searched: Sequence[str]) -> tuple[dict[str, Any], Usage]:
    """The LLM's choice: {"action": "search", "queries": [...]} or {"action": "stop"}."""
    native = deps.settings.llm.resolved_provider() == "openai"
    user = prompts.render(
        "reformulate",
        claim=claim,
        found=found(verdict),
        searched="\n".join(f"- {q}" for q in searched),
        format=prompts.part("reformulate_format_tools" if native else "reformulate_format_json"),
    )
    system = prompts.load("reformulate_system")
    if native:
        return ask_with_tools(deps, system, user)
    max_tokens = min(MAX_REPLY_TOKENS, deps.settings.llm.max_tokens)
    reply, usage = chat(deps.llm, system, user, json_mode=True, max_tokens=max_tokens)
    return read_reply(reply), usage


@timed("reformulate")
def reformulate(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    searched = list(state.get("searched", []))
    round_no = state.get("rounds", 0) + 1
    try:
        choice, usage = plan(deps, state["claim"], state.get("verdict"), searched)
    except LLMUnavailableError as e:
        return {"rounds": round_no, "llm_error": str(e), "notes": [written("{error}: no second search round", error=e)]}
    queries = new_queries(choice.get("queries"), searched) if choice.get("action") != "stop" else []
    if not queries:
        note = written("search round {n}: the model found no new query worth searching; the verdict stands",
                       n=round_no + 1)
        return {"rounds": round_no, "usage": usage, "notes": [note]}
    listed = "; ".join(f'"{q}"' for q in queries)
    return {
        "rounds": round_no,
        "queries": [*state.get("queries", []), *(Query(text=q, kind="reformulated") for q in queries)],
        "round_queries": queries,
        "usage": usage,
        "notes": [written("search round {n}: the search so far found {found}, so it searched again with {queries}",
                          n=round_no + 1, found=found(state.get("verdict")), queries=listed)],
    }
