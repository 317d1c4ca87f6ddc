"""Ranked-retrieval metrics with binary relevance: Recall@k, AP@k (MAP@k), nDCG@k.

Conventions follow ``trec_eval`` as wrapped by ``pytrec_eval`` and used by BEIR (measures ``recall_k``,
``map_cut_k``, ``ndcg_cut_k``). The trec_eval source checked is ``m_map_cut.c`` (trec_eval 9.0.7, copy in
``castorini/anserini``): AP@k = sum over relevant hits in the top k of precision@rank, divided by the
*total* number of relevant docs (``num_rel``), not by ``min(num_rel, k)``.

* The ranking is read in the given order; a doc id repeated in ``ranked`` counts only at its first position.
  Doc ids are compared as strings, so int and str ids (SciFact mixes them) match.
* Recall@k = |relevant ∩ top-k| / |relevant|. For claims with several relevant docs this is the fraction
  found (trec_eval / BEIR ``recall_k``), not the "all relevant docs found" hit rate.
* AP@k: see above. ``denominator="min_k"`` divides by ``min(|relevant|, k)`` instead (the variant that
  makes a perfect top-k score 1.0 when |relevant| > k). On SciFact no claim has more than 5 cited docs, so
  MAP@5 is the same under both.
* nDCG@k: gains are 1/0, discount ``1 / log2(rank + 1)`` for 1-based rank; ideal DCG puts
  ``min(|relevant|, k)`` relevant docs first.
* The per-query functions raise ``ValueError`` for an empty ``relevant`` set (undefined; trec_eval skips it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

DEFAULT_KS: Mapping[str, tuple[int, ...]] = {"recall": (3, 5), "map": (5,), "ndcg": (10,)}


def _check(relevant: Iterable[object], k: int) -> set[str]:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    rel = {str(d) for d in relevant}
    if not rel:
        raise ValueError("metric undefined for a query without relevant documents")
    return rel


def _top_k(ranked: Sequence[object], k: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for doc in ranked:
        d = str(doc)
        if d in seen:
            continue
        seen.add(d)
        out.append(d)
        if len(out) == k:
            break
    return out


def recall_at_k(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Fraction of the relevant docs that appear in the top ``k``."""
    rel = _check(relevant, k)
    return sum(d in rel for d in _top_k(ranked, k)) / len(rel)


def average_precision_at_k(
    ranked: Sequence[str],
    relevant: set[str],
    k: int,
    denominator: Literal["num_rel", "min_k"] = "num_rel",
) -> float:
    """AP cut at ``k`` (one query's term of MAP@k); trec_eval ``map_cut`` by default (over |relevant|)."""
    rel = _check(relevant, k)
    hits = 0
    total = 0.0
    for i, d in enumerate(_top_k(ranked, k), start=1):
        if d in rel:
            hits += 1
            total += hits / i
    if denominator == "num_rel":
        norm = len(rel)
    elif denominator == "min_k":
        norm = min(len(rel), k)
    else:
        raise ValueError(f"unknown denominator {denominator!r}")
    return total / norm


def ndcg_at_k(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Binary-gain nDCG@k with a log2(rank + 1) discount."""
    rel = _check(relevant, k)
    dcg = sum(1.0 / math.log2(i + 1) for i, d in enumerate(_top_k(ranked, k), start=1) if d in rel)
    idcg = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(rel), k) + 1))
    return dcg / idcg


_METRICS = {"recall": recall_at_k, "map": average_precision_at_k, "ndcg": ndcg_at_k}


def retrieval_report(
    runs: Mapping[int, Sequence[str]],
    qrels: Mapping[int, set[str]],
    ks: Mapping[str, Sequence[int]] = DEFAULT_KS,
) -> dict[str, float]:
    """Mean of each metric over the queries of ``qrels`` that have at least one relevant doc.

    Keys are ``f"{metric}@{k}"`` for ``metric`` in ``ks`` (``recall``, ``map``, ``ndcg``); the default gives
    ``recall@3``, ``recall@5``, ``map@5``, ``ndcg@10``. A query with relevant docs but no entry in ``runs``
    scores 0 (pytrec_eval would silently drop it); runs for queries absent from ``qrels`` are ignored.
    """
    unknown = set(ks) - set(_METRICS)
    if unknown:
        raise ValueError(f"unknown metrics {sorted(unknown)}; choose from {sorted(_METRICS)}")
    qids = [q for q, rel in qrels.items() if rel]
    if not qids:
        raise ValueError("no query has relevant documents")
    report: dict[str, float] = {}
    for name, cutoffs in ks.items():
        fn = _METRICS[name]
        for k in cutoffs:
            report[f"{name}@{k}"] = sum(fn(runs.get(q, ()), qrels[q], k) for q in qids) / len(qids)
    return report
