"""Fusion and reranking arithmetic of tools/index/search.py, checked against hand-computed orders."""

from __future__ import annotations

import pytest

from tools.index.search import reciprocal_rank_fusion, rerank_scores


def test_rrf_sums_reciprocal_ranks_and_breaks_ties_by_doc_id() -> None:
    fused = reciprocal_rank_fusion({"a": ["x", "y"], "b": ["y", "z"]}, k=1)
    # x: 1/2; y: 1/3 + 1/2; z: 1/3
    assert [(d, round(s, 4)) for d, s, _ in fused] == [("y", 0.8333), ("x", 0.5), ("z", 0.3333)]
    assert fused[0][2] == ["a", "b"]
    tie = reciprocal_rank_fusion({"a": ["q"], "b": ["p"]}, k=1)
    assert [d for d, _, _ in tie] == ["p", "q"]


FUSED = [("a", 0.9), ("b", 0.5), ("c", 0.1), ("d", 0.05)]


def test_rerank_alpha_one_keeps_fused_order() -> None:
    assert rerank_scores(FUSED, {"c": 1.0}, top=3, alpha=1.0) == ["a", "b", "c", "d"]


def test_rerank_alpha_zero_orders_head_by_evidence_and_keeps_tail() -> None:
    # d is outside the top 3: its evidence score is ignored and it stays last
    assert rerank_scores(FUSED, {"b": 0.2, "c": 0.9, "d": 1.0}, top=3, alpha=0.0) == ["c", "b", "a", "d"]


def test_rerank_mixes_normalised_fused_score() -> None:
    # normalised fused in the top 3: a 1.0, b 0.5, c 0.0; alpha 0.5 -> a 0.5, b 0.25 + 0.3 = 0.55, c 0.45
    assert rerank_scores(FUSED, {"b": 0.6, "c": 0.9}, top=3, alpha=0.5) == ["b", "a", "c", "d"]


@pytest.mark.parametrize("top", [0, 10])
def test_rerank_edges(top: int) -> None:
    out = rerank_scores(FUSED, {}, top=top, alpha=0.3)
    assert out == ["a", "b", "c", "d"]  # no evidence anywhere: the fused order survives
    assert rerank_scores([], {}, top=top, alpha=0.3) == []
