"""Does reranking fused candidates with the stance verifier raise Recall@3?

The verifier's P(supports) + P(contradicts) for (claim, "<title>: <sentence>") is a claim-to-rationale relevance
score. A document's evidence score is its best sentence's (agent.nodes.rerank.evidence_scores, as the pipeline);
the reranked score mixes it with the fused retrieval score (min-max normalised within the top N):
alpha * fused + (1 - alpha) * evidence.

Tuned on the SciFact TRAIN claims the committed verifier did NOT see (the held-out slice of the verifier
training, same seed and fraction), then reported once on DEV:

    python -m evals.studies.rerank_experiments --split heldout --out evals/results
    python -m evals.studies.rerank_experiments --split dev --out evals/results
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.search.rerank import evidence_scores
from evals.experiments import RETRIEVAL_COLUMNS, experiment_header, report_heading, retrieval_cells, write_experiment
from evals.scifact.data import RESULTS_DIR, cited_qrels, evidence_qrels, heldout_claims, load_claims
from evals.scifact.retrieval_metrics import retrieval_report
from tools.index.search import reciprocal_rank_fusion, rerank_scores

TOPS = (10, 20)
ALPHAS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.8)
SENTENCE_MODES = {"dense3": 3, "all": 0}  # sentences read per abstract (0 = all); "all" costs about 3x the time


def fused_lists(
    index: Any, claims: Sequence[Mapping[str, Any]], depth: int, rrf_k: int
) -> list[list[tuple[str, float]]]:
    """The pipeline's claim-only fusion (BM25 + dense sentences, RRF) for every claim."""
    vecs = index.embed([c["claim"] for c in claims])
    out = []
    for c, vec in zip(claims, vecs, strict=True):
        lists = {
            "bm25": [h.doc_id for h in index.bm25(c["claim"], depth)],
            "dense": [h.doc_id for h in index.dense_sentences(vec, depth)],
        }
        out.append([(d, s) for d, s, _ in reciprocal_rank_fusion(lists, rrf_k)])
    return out


def main(argv: list[str] | None = None) -> int:
    from agent.settings.app import get_settings
    from tools.index.local import CorpusIndex
    from tools.models.verifier import get_verifier

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--split", choices=["heldout", "dev"], default="heldout")
    p.add_argument("--limit", type=int)
    p.add_argument("--modes", nargs="+", choices=list(SENTENCE_MODES), default=list(SENTENCE_MODES))
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)
    settings = get_settings()
    if args.split == "heldout":
        claims = heldout_claims(settings.stores.corpus_mirror)
    else:
        claims = load_claims(settings.stores.corpus_mirror, "dev")
    claims = claims[: args.limit] if args.limit else claims
    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    verifier = get_verifier()
    fused = fused_lists(index, claims, settings.retrieval.depth, settings.retrieval.rrf_k)
    ev_q, cited_q = evidence_qrels(claims), cited_qrels(claims)
    base = {int(c["id"]): [d for d, _ in f] for c, f in zip(claims, fused, strict=True)}
    table: dict[str, dict[int, list[str]]] = {"fused (no rerank, pipeline before)": base}
    seconds: dict[str, float] = {}
    for mode in args.modes:
        t0 = time.perf_counter()
        ev = [
            evidence_scores(c["claim"], [d for d, _ in f[: max(TOPS)]], index, verifier, SENTENCE_MODES[mode])
            for c, f in zip(claims, fused, strict=True)
        ]
        seconds[f"{mode} top{max(TOPS)}"] = round((time.perf_counter() - t0) / len(claims), 3)
        for top in TOPS:  # a smaller top reuses the scores of its documents
            for alpha in ALPHAS:
                runs = {}
                for c, f, e in zip(claims, fused, ev, strict=True):
                    runs[int(c["id"])] = rerank_scores(f, e, top, alpha)
                table[f"rerank {mode} sentences, top {top}, alpha {alpha}"] = runs
    res = {
        **experiment_header("evals.studies.rerank_experiments", argv, args.split, claims),
        "seconds_per_claim": seconds,
        "variants": {
            name: {"retrieval": retrieval_report(runs, ev_q), "retrieval_cited": retrieval_report(runs, cited_q)}
            for name, runs in table.items()
        },
    }
    write_experiment(args.out, f"rerank_experiments_{args.split}", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    lines = report_heading(
        res, "Verifier reranking", "Claim-only queries; fused = RRF of BM25 and dense sentences as in the pipeline."
    )
    lines += [
        "",
        "Verifier seconds per claim: " + ", ".join(f"{k} {v}" for k, v in res["seconds_per_claim"].items()),
        "",
        "| variant | " + " | ".join(RETRIEVAL_COLUMNS) + " |",
        "|---|" + "---:|" * len(RETRIEVAL_COLUMNS),
    ]
    lines += [f"| {name} | {retrieval_cells(m)} |" for name, m in res["variants"].items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
