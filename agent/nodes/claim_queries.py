"""Claim queries: the claim and its rule-made negation, the queries that need no LLM. They are searched, judged and
shown (as a provisional verdict) the moment the claim arrives; the LLM's search questions come after (decompose)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Query
from tools.text.opposite import negation


@timed("claim_queries")
def claim_queries(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    claim = state["claim"]
    return {"queries": [Query(text=claim, kind="claim"), Query(text=negation(claim), kind="opposite")]}
