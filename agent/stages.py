"""The pipeline's stages as functions: each runs a span of the claim graph (agent.graph) on a state and returns
the state after it. The CLI and the UI run the whole graph; the evals, their replays and the follow-ups run
stages, so every caller goes through the same nodes and edges.

* retrieval: claim_queries -> rerank (the claim and its negation; retrieve -> rerank when the queries are given, as
  the evals do)
* evidence: select_evidence -> context (the candidates the judge reads)
* judgement: select_evidence -> direction (the verifier's gate and labels, the LLM's direction, the verdict)
* answer: answer -> correct (verify and self-correction included)
* verification: verify -> correct (a follow-up answer drafted elsewhere, checked and corrected the same way)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from agent.graph import build_graph
from agent.state import ClaimState, Deps, Query


@lru_cache(maxsize=16)
def span_graph(first: str, last: str) -> Any:
    """The compiled span, built once per process; never checkpointed."""
    return build_graph(checkpointer=False, first=first, last=last)


def run_span(state: ClaimState, deps: Deps, first: str, last: str) -> ClaimState:
    out: ClaimState = span_graph(first, last).invoke(state, context=deps)
    return out


def retrieval(claim: str, deps: Deps, queries: Sequence[Query] | None = None) -> ClaimState:
    """Retrieval, fusion and reranking for one claim: of the given queries, or of the claim and its negation."""
    if queries is None:
        return run_span({"claim": claim}, deps, "claim_queries", "rerank")
    return run_span({"claim": claim, "queries": list(queries)}, deps, "retrieve", "rerank")


def evidence(state: ClaimState, deps: Deps) -> ClaimState:
    return run_span(state, deps, "select_evidence", "context")


def judgement(state: ClaimState, deps: Deps) -> ClaimState:
    return run_span(state, deps, "select_evidence", "judge_sources")


def answer(state: ClaimState, deps: Deps) -> ClaimState:
    return run_span(state, deps, "answer", "correct")


def verification(state: ClaimState, deps: Deps) -> ClaimState:
    return run_span(state, deps, "verify", "correct")
