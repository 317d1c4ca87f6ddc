"""Select evidence candidates: in each top abstract, the sentences the rationale selector's shortlist finds most
likely to carry the finding on the claim (agent.judge.rationale), which the verifier then reads. Sources
are numbered by paper: the sentences of one abstract share its number [n], which the answer cites. In a
reformulated search round the abstracts that already bore on the claim are read again beside the new top ones, so a
second round adds sources and never loses one."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.judge.rationale import get_selector
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Evidence, numbered
from tools.documents.design import classify


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
    selector = get_selector()
    evidence: list[Evidence] = []
    for doc_id in top:
        doc = deps.index.docs[doc_id]
        design = classify(doc)
        sims = [float(x) for x in vectors[doc_id] @ claim_vec]
        shortlist = selector.shortlist(
            state["claim"], doc.sentences, sims, judge.candidates_per_doc, judge.min_sentence_chars
        )
        for i, score in shortlist:
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
                    shortlist_score=score,
                )
            )
    return {"evidence": numbered(evidence)}
