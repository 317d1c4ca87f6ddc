"""Retrieve (seeds 002, 003): every search question through every retrieval tool, in parallel."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.state import ClaimState, Deps
from tools.search import make_search_tools


@timed("retrieve")
def retrieve(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    tools = make_search_tools(deps.index, deps.settings.retrieval_depth)
    queries = [q.text for q in state["queries"]]
    ranked: dict[str, list[str]] = {}
    for tool in tools:
        results = tool.batch([{"query": q} for q in queries])
        for query, hits in zip(queries, results, strict=True):
            ranked[f"{tool.name}|{query}"] = [h["doc_id"] for h in hits]
    return {"ranked_lists": ranked}
