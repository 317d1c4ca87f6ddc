"""Fuse: reciprocal rank fusion across questions and retrievers. After a reformulated search round, what its queries
found comes first (fused over their own lists), so that the judge reads new abstracts rather than the ones that
already bore on nothing; everything else follows in the fusion of all lists."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, RankedDoc
from tools.index.search import reciprocal_rank_fusion


@timed("fuse")
def fuse(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    retrieval = runtime.context.settings.retrieval
    lists = state.get("ranked_lists", {})
    fused = reciprocal_rank_fusion(lists, retrieval.rrf_k)[: retrieval.depth]
    latest = set(state.get("round_queries", []))
    if latest:
        found_now = {k: v for k, v in lists.items() if k.split("|", 1)[1] in latest}
        first = reciprocal_rank_fusion(found_now, retrieval.rrf_k)
        ids = {d for d, _, _ in first}
        fused = [*first, *(f for f in fused if f[0] not in ids)][: retrieval.depth]
    candidates = [
        RankedDoc(
            doc_id=d,
            score=round(s, 6),
            found_by=sorted({n.split("|")[0] for n in by}),
        )
        for d, s, by in fused
    ]
    return {"candidates": candidates}
