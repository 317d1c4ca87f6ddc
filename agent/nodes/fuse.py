"""Fuse: reciprocal rank fusion across questions and retrievers."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, RankedDoc
from tools.search import reciprocal_rank_fusion


@timed("fuse")
def fuse(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    retrieval = runtime.context.settings.retrieval
    fused = reciprocal_rank_fusion(state.get("ranked_lists", {}), retrieval.rrf_k)[: retrieval.depth]
    candidates = [
        RankedDoc(
            doc_id=d,
            score=round(s, 6),
            found_by=sorted({n.split("|")[0] for n in by}),
        )
        for d, s, by in fused
    ]
    return {"candidates": candidates}
