"""Claim queries: the claim and its rule-made negation, the queries that need no LLM. They are searched, judged and
shown (as a provisional verdict) the moment the claim arrives; the LLM's search questions come after (decompose)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Query


def negation(claim: str) -> str:
    """The opposite claim without an LLM: "It is not true that ..." (FRSC searches the opposite claim too). The first
    letter is lowered unless it starts an acronym or a name such as "ALDH1" or "IL-6"."""
    if not claim:
        return claim
    first = claim.split(maxsplit=1)[0]
    keep = len(first) > 1 and not first[1:].islower()
    return f"It is not true that {claim if keep else claim[0].lower() + claim[1:]}"


@timed("claim_queries")
def claim_queries(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    claim = state["claim"]
    return {"queries": [Query(text=claim, kind="claim"), Query(text=negation(claim), kind="opposite")]}
