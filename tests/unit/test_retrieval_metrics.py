"""Hand-computed toy cases for evals.scifact.retrieval_metrics (trec_eval / BEIR conventions)."""

from __future__ import annotations

import math

import pytest

from evals.scifact.retrieval_metrics import average_precision_at_k, ndcg_at_k, recall_at_k, retrieval_report

LOG2_3 = math.log2(3)  # 1.5849625


def test_recall_at_k() -> None:
    ranked = ["a", "b", "c", "d"]
    assert recall_at_k(ranked, {"b", "d"}, 1) == 0.0  # top1 = {a}
    assert recall_at_k(ranked, {"b", "d"}, 3) == 0.5  # top3 has b only -> 1/2
    assert recall_at_k(ranked, {"b", "d"}, 4) == 1.0
    assert recall_at_k(ranked, {"b", "d"}, 100) == 1.0  # k beyond the ranking
    assert recall_at_k(["a"], {"b"}, 5) == 0.0
    assert recall_at_k([], {"b"}, 5) == 0.0


def test_recall_dedupes_and_matches_int_ids() -> None:
    # duplicates count once: top2 after dedupe = [a, b] -> 1/1
    assert recall_at_k(["a", "a", "b"], {"b"}, 2) == 1.0
    # SciFact mixes int and str doc ids; both compare as strings
    assert recall_at_k([123, 456], {"456"}, 2) == 1.0  # type: ignore[list-item]


def test_average_precision_at_k() -> None:
    ranked = ["a", "b", "c", "d", "e"]
    # hits at ranks 2 and 4: (1/2 + 2/4) / 2 = 0.5
    assert average_precision_at_k(ranked, {"b", "d"}, 5) == pytest.approx(0.5)
    # cut at 3: only the rank-2 hit: (1/2) / 2 = 0.25  (trec_eval divides by all relevant)
    assert average_precision_at_k(ranked, {"b", "d"}, 3) == pytest.approx(0.25)
    assert average_precision_at_k(["b"], {"b"}, 5) == 1.0
    assert average_precision_at_k(["a", "b"], {"b"}, 5) == 0.5
    # 6 relevant, hits at ranks 2, 4 within k=5: sum = 1/2 + 2/4 = 1.0
    six = {"b", "d", "x", "y", "z", "w"}
    assert average_precision_at_k(ranked, six, 5) == pytest.approx(1 / 6)  # num_rel = 6 -> 0.16667
    # min(6, 5) = 5 -> 0.2
    assert average_precision_at_k(ranked, six, 5, denominator="min_k") == pytest.approx(1 / 5)
    # perfect top-5 with 6 relevant: 5/6 under trec_eval, 1.0 under min_k
    perfect = ["b", "d", "x", "y", "z"]
    assert average_precision_at_k(perfect, six, 5) == pytest.approx(5 / 6)
    assert average_precision_at_k(perfect, six, 5, denominator="min_k") == pytest.approx(1.0)


def test_ndcg_at_k() -> None:
    # hits at ranks 1 and 3: DCG = 1 + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3) = 1.6309298 -> 0.9197208
    assert ndcg_at_k(["a", "b", "c"], {"a", "c"}, 3) == pytest.approx(1.5 / (1 + 1 / LOG2_3))
    assert ndcg_at_k(["a", "b", "c"], {"a", "c"}, 3) == pytest.approx(0.9197208)
    # single relevant at rank 2: 1/log2(3) = 0.6309298
    assert ndcg_at_k(["a", "b"], {"b"}, 10) == pytest.approx(0.6309298)
    assert ndcg_at_k(["a", "b"], {"b"}, 1) == 0.0  # outside the cut
    assert ndcg_at_k(["b", "a"], {"b"}, 10) == 1.0
    # 3 relevant, k=2, top2 both relevant: IDCG uses min(3,2)=2 ideal hits -> 1.0
    assert ndcg_at_k(["a", "b", "c"], {"a", "b", "c"}, 2) == pytest.approx(1.0)


def test_per_query_errors() -> None:
    with pytest.raises(ValueError):
        recall_at_k(["a"], set(), 3)
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], {"a"}, 0)


def test_retrieval_report() -> None:
    runs = {
        1: ["d1", "d2", "d3", "d4", "d5"],  # relevant d2 at rank 2
        2: ["x1", "x2", "x3", "x4", "r1", "x6"],  # relevant r1 at rank 5, r2 not retrieved
        4: ["q"],  # query without relevant docs: skipped
        99: ["d1"],  # not in qrels: ignored
    }
    qrels = {1: {"d2"}, 2: {"r1", "r2"}, 3: {"z"}, 4: set()}  # query 3 has no run: scores 0
    rep = retrieval_report(runs, qrels)
    assert list(rep) == ["recall@3", "recall@5", "map@5", "ndcg@10"]
    # recall@3: q1 1, q2 0, q3 0 -> 1/3
    assert rep["recall@3"] == pytest.approx(1 / 3)
    # recall@5: q1 1, q2 1/2, q3 0 -> 0.5
    assert rep["recall@5"] == pytest.approx(0.5)
    # map@5: q1 (1/2)/1 = .5, q2 (1/5)/2 = .1, q3 0 -> 0.2
    assert rep["map@5"] == pytest.approx(0.2)
    # ndcg@10: q1 1/log2(3) = .6309298; q2 (1/log2(6)) / (1 + 1/log2(3)) = .3868528/1.6309298 = .2371987; q3 0
    # mean = (.6309298 + .2371987) / 3 = .2893762
    assert rep["ndcg@10"] == pytest.approx(0.2893762, abs=1e-6)


def test_retrieval_report_custom_ks_and_errors() -> None:
    rep = retrieval_report({1: ["a", "b"]}, {1: {"b"}}, ks={"recall": (1, 2), "ndcg": (2,)})
    assert rep == pytest.approx({"recall@1": 0.0, "recall@2": 1.0, "ndcg@2": 1 / LOG2_3})
    with pytest.raises(ValueError, match="unknown metrics"):
        retrieval_report({1: ["a"]}, {1: {"a"}}, ks={"mrr": (10,)})
    with pytest.raises(ValueError, match="no query"):
        retrieval_report({1: ["a"]}, {1: set()})
