"""Retrieval over the local index, exposed as LangChain tools (the docstrings are the tool specs), and
reciprocal rank fusion across questions and retrievers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool


def make_search_tools(index: Any, depth: int) -> list[BaseTool]:
    """The local retrieval tools bound to one index."""

    def bm25_search(query: str, k: int = depth) -> list[dict[str, Any]]:
        """Keyword (BM25) search over titles and abstracts of the local corpus. Returns ranked documents."""
        return [{"doc_id": h.doc_id, "score": h.score} for h in index.bm25(query, k)]

    def dense_sentence_search(query: str, k: int = depth) -> list[dict[str, Any]]:
        """Semantic search over title-prepended abstract sentences. Returns ranked documents with the index
        of their best-matching sentence."""
        vec = index.embed([query])[0]
        return [
            {"doc_id": h.doc_id, "score": h.score, "sentence_index": h.sentence_index}
            for h in index.dense_sentences(vec, k)
        ]

    return [
        StructuredTool.from_function(bm25_search, name="bm25_search"),
        StructuredTool.from_function(dense_sentence_search, name="dense_sentence_search"),
    ]


def reciprocal_rank_fusion(ranked_lists: Mapping[str, Sequence[str]], k: int) -> list[tuple[str, float, list[str]]]:
    """RRF: score(d) = sum over lists of 1 / (k + rank). Returns (doc_id, score, lists that found it), best first;
    ties broken by doc_id so the order is deterministic."""
    scores: dict[str, float] = defaultdict(float)
    found: dict[str, list[str]] = defaultdict(list)
    for name, docs in ranked_lists.items():
        for rank, doc_id in enumerate(docs, start=1):
            scores[doc_id] += 1.0 / (k + rank)
            found[doc_id].append(name)
    return sorted(((d, s, found[d]) for d, s in scores.items()), key=lambda x: (-x[1], x[0]))


def rerank_scores(
    fused: Sequence[tuple[str, float]], evidence: Mapping[str, float], top: int, alpha: float
) -> list[str]:
    """Reorder the first ``top`` fused documents by ``alpha * fused + (1 - alpha) * evidence``, the fused score
    min-max normalised within those documents and ``evidence`` in [0, 1] (a missing doc counts 0); the rest keep
    their fused order after them. Ties keep the fused order."""
    head, tail = list(fused[:top]), [d for d, _ in fused[top:]]
    if not head:
        return tail
    lo, hi = min(s for _, s in head), max(s for _, s in head)

    def mixed(item: tuple[int, tuple[str, float]]) -> tuple[float, int]:
        rank, (doc, score) = item
        norm = (score - lo) / (hi - lo) if hi > lo else 1.0
        return (-(alpha * norm + (1 - alpha) * evidence.get(doc, 0.0)), rank)

    return [doc for _, (doc, _) in sorted(enumerate(head), key=mixed)] + tail
