"""Cheap retrieval variants measured on SciFact TRAIN claims (never tuned on dev).

Every claim (and, for the "+opposite" variants, its LLM-free negation ``fallback_opposite``) is sent once to each
retriever of the index at a generous depth; the variants are then fused offline from those same lists:
RRF constant k, per-retriever RRF weights, list depth, dense abstracts as a third retriever (the index keeps only
sentence embeddings, so the abstracts are embedded here, in memory), the opposite claim as a second query, and
min-max score fusion instead of RRF. The first row reproduces what the pipeline did before k was tuned.

    python -m evals.retrieval_experiments --split train --out evals/results
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import RETRIEVAL_COLUMNS, experiment_header, report_heading, retrieval_cells, write_experiment
from evals.scifact.data import RESULTS_DIR, cited_qrels, evidence_qrels, load_claims
from evals.scifact.retrieval_metrics import recall_at_k, retrieval_report

DEPTH = 100
Lists = dict[str, list[tuple[str, float]]]  # retriever -> [(doc_id, score)], best first


class AbstractVectors:
    """Title-prepended whole-abstract embeddings of the index's documents, made once, searched by cosine."""

    def __init__(self, index: Any) -> None:
        self.ids = list(index.docs)
        vecs = index.embed([f"{d.title}: {d.text}" for d in index.docs.values()])
        self.vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)

    def search(self, vec: np.ndarray, k: int) -> list[tuple[str, float]]:
        sims = self.vecs @ (vec / np.linalg.norm(vec))
        return [(self.ids[int(i)], float(sims[i])) for i in np.argsort(-sims)[:k]]


def gather(index: Any, abstracts: AbstractVectors, texts: Sequence[str], depth: int = DEPTH) -> list[Lists]:
    """Per text: BM25, dense sentence (best sentence per doc) and dense abstract rankings with scores."""
    from tqdm import tqdm

    vecs = index.embed(list(texts))
    out: list[Lists] = []
    for text, vec in tqdm(list(zip(texts, vecs, strict=True)), desc="retrieving", unit="query", disable=None):
        out.append(
            {
                "bm25": [(h.doc_id, h.score) for h in index.bm25(text, depth)],
                "dense": [(h.doc_id, h.score) for h in index.dense_sentences(vec, depth)],
                "dense_abs": abstracts.search(vec, depth),
            }
        )
    return out


def rrf(lists: Sequence[tuple[Sequence[tuple[str, float]], float]], k: int) -> list[str]:
    """Weighted RRF over (ranking, weight) pairs; ties by doc id as in tools.search.reciprocal_rank_fusion."""
    scores: dict[str, float] = defaultdict(float)
    for ranking, weight in lists:
        for rank, (doc, _) in enumerate(ranking, start=1):
            scores[doc] += weight / (k + rank)
    return [d for d, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))]


def _minmax(vals: Sequence[float]) -> Callable[[float], float]:
    lo, hi = min(vals), max(vals)
    return lambda s: (s - lo) / (hi - lo) if hi > lo else 1.0


def _zscore(vals: Sequence[float]) -> Callable[[float], float]:
    mean = sum(vals) / len(vals)
    sd = (sum((x - mean) ** 2 for x in vals) / len(vals)) ** 0.5 or 1.0
    return lambda s: (s - mean) / sd


def score_fusion(lists: Sequence[tuple[Sequence[tuple[str, float]], float]], normalise: str) -> list[str]:
    """Weighted sum of per-list normalised scores ("minmax" or "zscore"); a doc absent from a list gets 0 there."""
    scores: dict[str, float] = defaultdict(float)
    for ranking, weight in lists:
        if not ranking:
            continue
        norm = (_minmax if normalise == "minmax" else _zscore)([s for _, s in ranking])
        for doc, s in ranking:
            scores[doc] += weight * norm(s)
    return [d for d, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))]


@dataclass(frozen=True)
class Variant:
    """Fusion of some lists: ``lists`` = (query: "claim" | "opposite", retriever, weight); ``fusion`` = rrf | minmax
    | zscore | single (the first list alone)."""

    lists: tuple[tuple[str, str, float], ...]
    fusion: str = "rrf"
    k: int = 60
    depth: int = 50

    def rank(self, claim: Lists, opposite: Lists) -> list[str]:
        chosen = [((claim if q == "claim" else opposite)[r][: self.depth], w) for q, r, w in self.lists]
        if self.fusion == "single":
            return [d for d, _ in chosen[0][0]]
        if self.fusion in ("minmax", "zscore"):
            return score_fusion(chosen, self.fusion)
        return rrf(chosen, self.k)


BASELINE = "RRF(bm25, dense_sent) k=60 depth 50 (pipeline before)"
BM25 = ("claim", "bm25", 1.0)
DENSE = ("claim", "dense", 1.0)
DENSE_ABS = ("claim", "dense_abs", 1.0)


MINMAX_05 = Variant((("claim", "bm25", 0.5), ("claim", "dense", 0.5)), "minmax")


def variants(rrf_k: int) -> dict[str, Variant]:
    v: dict[str, Variant] = {
        BASELINE: Variant((BM25, DENSE)),
        f"RRF k={rrf_k} (pipeline now: the RRF_K setting)": Variant((BM25, DENSE), k=rrf_k),
        "bm25 alone": Variant((BM25,), "single", depth=DEPTH),
        "dense_sent alone": Variant((DENSE,), "single", depth=DEPTH),
        "dense_abs alone": Variant((DENSE_ABS,), "single", depth=DEPTH),
        "RRF depth 100": Variant((BM25, DENSE), depth=100),
        "RRF depth 20": Variant((BM25, DENSE), depth=20),
        "RRF + dense_abs (3 lists)": Variant((BM25, DENSE, DENSE_ABS)),
        "RRF claim + opposite (4 lists)": Variant((BM25, DENSE, ("opposite", "bm25", 1.0), ("opposite", "dense", 1.0))),
    }
    for k in (1, 3, 5, 10, 20, 30, 100):
        v[f"RRF k={k}"] = Variant((BM25, DENSE), k=k)
    for k in (1, 3, 5):
        v[f"RRF claim + opposite (4 lists) k={k}"] = Variant(
            (BM25, DENSE, ("opposite", "bm25", 1.0), ("opposite", "dense", 1.0)), k=k
        )
    for w in (0.5, 0.75, 1.5, 2.0):
        v[f"RRF dense weight {w}"] = Variant((BM25, ("claim", "dense", w)))
    for wa in (0.5, 1.0):
        for k in (10, 60):
            v[f"RRF + dense_abs weight {wa} k={k}"] = Variant((BM25, DENSE, ("claim", "dense_abs", wa)), k=k)
    for a in (0.3, 0.4, 0.5, 0.6, 0.7):
        v[f"min-max fusion bm25 {a} / dense {1 - a:.1f}"] = Variant(
            (("claim", "bm25", a), ("claim", "dense", 1 - a)), "minmax"
        )
    for a in (0.4, 0.5, 0.6):
        for depth in (50, 100):
            v[f"z-score fusion bm25 {a} / dense {1 - a:.1f} depth {depth}"] = Variant(
                (("claim", "bm25", a), ("claim", "dense", 1 - a)), "zscore", depth=depth
            )
    for a, b in ((0.4, 0.2), (0.3, 0.3), (0.4, 0.3), (0.5, 0.2)):
        v[f"min-max fusion bm25 {a} / dense {1 - a - b:.1f} / dense_abs {b}"] = Variant(
            (("claim", "bm25", a), ("claim", "dense", 1 - a - b), ("claim", "dense_abs", b)), "minmax"
        )
    return v


def _per_claim(runs: Mapping[int, list[str]], qrels: Mapping[int, set[str]], k: int) -> dict[int, float]:
    return {q: recall_at_k(runs.get(q, []), rel, k) for q, rel in qrels.items() if rel}


def evaluate(
    claims: Sequence[Mapping[str, Any]],
    claim_lists: Sequence[Lists],
    opp_lists: Sequence[Lists],
    extra: Mapping[str, Sequence[Lists]] | None = None,
    rrf_k: int = 5,
) -> dict[str, dict[str, Any]]:
    """Metrics of every variant, and per variant how many claims gain / lose Recall@3 and @5 against the old
    pipeline (k=60). ``extra``: other BM25 settings, fused with the same dense list (RRF and min-max)."""
    ev_q, cited_q = evidence_qrels(claims), cited_qrels(claims)
    table: dict[str, dict[int, list[str]]] = {}
    for name, fn in variants(rrf_k).items():
        table[name] = {int(c["id"]): fn.rank(cl, ol) for c, cl, ol in zip(claims, claim_lists, opp_lists, strict=True)}
    for bm_name, lists in (extra or {}).items():
        for fusion, spec in (("RRF k=60", Variant((BM25, DENSE))), ("min-max 0.5", MINMAX_05)):
            runs = {}
            for c, cl, bl in zip(claims, claim_lists, lists, strict=True):
                runs[int(c["id"])] = spec.rank({**cl, "bm25": bl["bm25"]}, cl)
            table[f"{bm_name}: {fusion} with dense_sent"] = runs
            table[f"{bm_name}: alone"] = {
                int(c["id"]): [d for d, _ in bl["bm25"]] for c, bl in zip(claims, lists, strict=True)
            }
    out: dict[str, dict[str, Any]] = {}
    base = table[BASELINE]
    for name, runs in table.items():
        paired = {}
        for k in (3, 5):
            a, b = _per_claim(base, ev_q, k), _per_claim(runs, ev_q, k)
            paired[f"recall@{k}"] = {"better": sum(b[q] > a[q] for q in a), "worse": sum(b[q] < a[q] for q in a)}
        out[name] = {
            "retrieval": retrieval_report(runs, ev_q),
            "retrieval_cited": retrieval_report(runs, cited_q),
            "claims_vs_before": paired,
        }
    return out


def bm25_settings(index: Any, texts: Sequence[str], depth: int = DEPTH) -> dict[str, list[Lists]]:
    """BM25 rankings under other parameters / fields, built in memory over the index's own abstracts."""
    import bm25s

    from tools.bm25 import tokenize

    docs = list(index.docs.values())
    ids = [d.doc_id for d in docs]
    plain = [f"{d.title} {d.text}" for d in docs]
    settings: dict[str, tuple[list[str], dict[str, Any]]] = {
        "BM25 k1=0.9 b=0.4": (plain, {"k1": 0.9, "b": 0.4}),
        "BM25 k1=1.2 b=0.5": (plain, {"k1": 1.2, "b": 0.5}),
        "BM25 k1=2.0 b=0.75": (plain, {"k1": 2.0, "b": 0.75}),
        "BM25 title twice": ([f"{d.title} {d.title} {d.text}" for d in docs], {}),
        "BM25+ (bm25s method)": (plain, {"method": "bm25+"}),
    }
    queries = tokenize(list(texts))
    out: dict[str, list[Lists]] = {}
    for name, (corpus, kw) in settings.items():
        retriever = bm25s.BM25(**kw)
        retriever.index(tokenize(corpus), show_progress=False)
        vocab = retriever.vocab_dict
        lists: list[Lists] = []
        for q in queries:
            toks = [t for t in q if t in vocab]
            if not toks:
                lists.append({"bm25": []})
                continue
            found, scores = retriever.retrieve([toks], k=depth, show_progress=False, n_threads=1)
            lists.append({"bm25": [(ids[int(i)], float(x)) for i, x in zip(found[0], scores[0], strict=True) if x > 0]})
        out[name] = lists
    return out


def markdown(res: Mapping[str, Any]) -> str:
    lines = report_heading(
        res,
        "Retrieval variants",
        "Claim-only queries unless stated; 'opposite' = the LLM-free negation `It is not true that ...`.",
    )
    lines += [
        "",
        "Last two columns: claims (with evidence) whose Recall@3 / @5 is better / worse than with the old pipeline.",
        "",
        "| variant | " + " | ".join(RETRIEVAL_COLUMNS) + " | R@3 +/- | R@5 +/- |",
        "|---|" + "---:|" * (len(RETRIEVAL_COLUMNS) + 2),
    ]
    for name, m in res["variants"].items():
        p = m["claims_vs_before"]
        lines.append(
            f"| {name} | {retrieval_cells(m)} | +{p['recall@3']['better']}/-{p['recall@3']['worse']} | "
            f"+{p['recall@5']['better']}/-{p['recall@5']['worse']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from agent.nodes.claim_queries import negation as fallback_opposite
    from agent.settings import get_settings
    from tools.index import CorpusIndex

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--split", choices=["train", "dev"], default="train")
    p.add_argument("--limit", type=int)
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)
    if args.split != "train":
        print("warning: tuning on dev; report dev only for the variant chosen on train", file=sys.stderr)
    settings = get_settings()
    claims = load_claims(settings.stores.corpus_mirror, args.split, args.limit)
    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    abstracts = AbstractVectors(index)
    t0 = time.perf_counter()
    claim_lists = gather(index, abstracts, [c["claim"] for c in claims])
    # the rule-made negation the claim_queries node searches
    opp_lists = gather(index, abstracts, [fallback_opposite(c["claim"]) for c in claims])
    res = {
        **experiment_header("evals.retrieval_experiments", argv, args.split, claims),
        "index": {k: index.manifest.get(k) for k in ("fingerprint", "docs", "sentences")},
        "retrieval_seconds": round(time.perf_counter() - t0, 1),
        "variants": evaluate(
            claims,
            claim_lists,
            opp_lists,
            bm25_settings(index, [c["claim"] for c in claims]),
            rrf_k=settings.retrieval.rrf_k,
        ),
    }
    write_experiment(args.out, f"retrieval_experiments_{args.split}", res, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
