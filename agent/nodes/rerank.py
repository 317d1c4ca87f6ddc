"""Rerank (as in VerT5erini): the independent verifier reads the sentences of the top fused abstracts; an abstract's
evidence score is its best sentence's P(supports) + P(contradicts), mixed with its fused score.

Chosen by measurement (the rerank study, retired: evals/studies/README.md, on the 122 SciFact train claims the
verifier never saw, evals/results/rerank_experiments_heldout.md): the 3 sentences closest to the claim of each of
the top 10 abstracts, fused weight 0.6 (settings RERANK_TOP / RERANK_SENTENCES / RERANK_ALPHA). With verifier v3
that moved Recall@3 from 0.850 to 0.887 and Recall@5 from 0.895 to 0.914 there; all sentences cost about 3x the
verifier time.

Off by default (RERANK_TOP=0): on all 300 dev claims it raised Recall@3 only from 0.888 to 0.894, and it lowered
abstract Label-Only F1 under 47 of the 48 labelling rules tried on those held-out claims (the abstracts it lifts
are the ones the verifier already likes, right or wrong; evals/results/label_experiments_heldout.md), at 0.8 s
per claim.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.search.abstract_evidence import evidence_scores
from agent.state import ClaimState, Deps, RankedDoc
from tools.index.search import rerank_scores


@timed("rerank")
def rerank(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    settings = deps.settings
    candidates = state.get("candidates", [])
    top = min(settings.retrieval.rerank_top, len(candidates))
    if top == 0:
        return {"candidates": candidates}
    head = [c.doc_id for c in candidates[:top]]
    evidence = evidence_scores(state["claim"], head, deps.index, deps.verifier, settings.retrieval.rerank_sentences)
    order = rerank_scores([(c.doc_id, c.score) for c in candidates], evidence, top, settings.retrieval.rerank_alpha)
    by_id: dict[str, RankedDoc] = {c.doc_id: c for c in candidates}
    reranked = [
        by_id[d].model_copy(update={"evidence_score": round(evidence[d], 4)}) if d in evidence else by_id[d]
        for d in order
    ]
    return {"candidates": reranked}
