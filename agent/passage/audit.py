"""The citation audit: a sentence that cites a paper the user's library holds is also judged against that paper
alone, with the same judge as a check (the verifier's gate and labels, then the LLM's reading of direction), so the
report can say whether the cited paper supports what the text says it does."""

from __future__ import annotations

from agent.passage.model import CitationAudit, PassageClaim
from agent.stages import judgement
from agent.state import ClaimState, Deps, Query, RankedDoc
from tools.text.cited import match
from tools.text.passage import Passage, citations


def judge_one(claim: str, doc_id: str, deps: Deps) -> ClaimState:
    """The judgement stage (agent.stages.judgement) of ``claim`` with one document as the only candidate."""
    state: ClaimState = {
        "claim": claim,
        "queries": [Query(text=claim, kind="claim")],
        "searched": [claim],
        "questions_asked": True,  # nothing is searched: the citation names the paper
        "candidates": [RankedDoc(doc_id=doc_id, score=1.0, found_by=["citation"])],
    }
    return judgement(state, deps)


def audit_claim(row: PassageClaim, passage: Passage, deps: Deps) -> list[CitationAudit]:
    """One audit per citation of the row's sentence ([] when it cites nothing)."""
    docs = deps.index.docs.values()
    out: list[CitationAudit] = []
    for cited in citations(row.sentence):
        found = match(cited, passage.references, docs)
        if found is None:
            out.append(CitationAudit(citation=cited.label))
            continue
        doc, how = found
        state = judge_one(row.claim, doc.doc_id, deps)
        assessed = next((a for a in state.get("assessments", []) if a.doc_id == doc.doc_id), None)
        finding = next((ev.sentence for ev in state.get("evidence", []) if ev.doc_id == doc.doc_id), "")
        score = assessed.score if assessed else 0.0
        outcome = "supports" if score > 0 else "contradicts" if score < 0 else "does not address"
        out.append(
            CitationAudit(
                citation=cited.label,
                doc_id=doc.doc_id,
                title=doc.title,
                matched_by=how,
                verdict=state.get("verdict"),
                finding=finding if score else "",
                outcome=outcome,
            )
        )
    return out
