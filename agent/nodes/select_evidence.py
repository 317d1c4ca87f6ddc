"""Select evidence sentences (as in VerT5erini): in each top abstract, the sentences closest to the claim. Sources
are numbered by paper: the sentences of one abstract share its number [n], which the answer cites. In a
reformulated search round the abstracts that already bore on the claim are read again beside the new top ones, so a
second round adds sources and never loses one."""

from __future__ import annotations

from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from agent.compose import numbered
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Evidence
from tools.design import classify


@timed("select_evidence")
def select_evidence(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    judge = deps.settings.judge
    kept = [a.doc_id for a in state.get("assessments", []) if a.score != 0] if state.get("round_queries") else []
    top = kept + [c.doc_id for c in state.get("candidates", []) if c.doc_id not in kept][: judge.top_docs]
    if not top:
        return {"evidence": []}
    claim_vec = deps.index.embed([state["claim"]])[0]
    vectors = deps.index.sentence_vectors(top)
    evidence: list[Evidence] = []
    for doc_id in top:
        doc = deps.index.docs[doc_id]
        design = classify(doc)
        sims = vectors[doc_id] @ claim_vec
        # split fragments such as "0.24 versus 1.15 +/-" carry no claim
        order = [int(i) for i in np.argsort(-sims) if len(doc.sentences[int(i)]) >= judge.min_sentence_chars]
        for i in order[: judge.candidates_per_doc]:
            evidence.append(
                Evidence(
                    n=0,  # numbered by paper below
                    doc_id=doc_id,
                    title=doc.title,
                    sentence=doc.sentences[i],
                    sentence_index=i,
                    url=doc.link(),
                    year=doc.year,
                    doi=doc.doi,
                    pmid=doc.pmid,
                    venue=doc.venue,
                    design=design.design,
                    design_basis=design.basis,
                    retracted=doc.retracted,
                    notices=list(doc.notices),
                    page=doc.pages[i] if doc.pages else None,
                )
            )
    return {"evidence": numbered(evidence)}
