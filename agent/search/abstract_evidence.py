"""The evidence score of each abstract the reranker node (agent.nodes.rerank) reorders, as in VerT5erini: the verifier
reads the sentences of an abstract closest to the claim, and the abstract's evidence score is its best sentence's
P(supports) + P(contradicts)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tools.text.premise import abstract_premise


def evidence_scores(claim: str, doc_ids: list[str], index: Any, verifier: Any, per_doc: int) -> dict[str, float]:
    """Best P(supports) + P(contradicts) over each abstract's ``per_doc`` sentences closest to the claim by
    embedding (all its sentences when ``per_doc`` is 0)."""
    pairs: list[tuple[str, str]] = []
    owners: list[str] = []
    vectors = index.sentence_vectors(doc_ids) if per_doc else {}
    claim_vec = index.embed([claim])[0] if per_doc else None
    for doc_id in doc_ids:
        doc = index.docs[doc_id]
        order: list[int] = list(range(len(doc.sentences)))
        if per_doc:
            order = [int(i) for i in np.argsort(-(vectors[doc_id] @ claim_vec))[:per_doc]]
        for i in order:
            pairs.append((claim, abstract_premise(doc.title, doc.sentences, [i])))
            owners.append(doc_id)
    best = dict.fromkeys(doc_ids, 0.0)
    for doc_id, res in zip(owners, verifier.predict(pairs), strict=True):
        best[doc_id] = max(best[doc_id], res.p_supports + res.p_contradicts)
    return best
