"""Assess each source (seed 000): the independent verifier judges every candidate sentence against the claim;
sentences with no bearing are dropped, abstracts left without evidence are pruned, and each remaining abstract
gets a local label on the 7-grade scale and a reputation weight."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.scoring import grade, reputation
from agent.state import ClaimState, Deps, Evidence, SourceAssessment


def premise(ev: Evidence) -> str:
    """What the verifier reads for one evidence sentence: title, then the sentence itself."""
    return f"{ev.title}: {ev.sentence}"


@timed("assess")
def assess(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    candidates = state.get("evidence", [])
    if not candidates:
        return {"evidence": [], "assessments": []}
    results = deps.verifier.predict([(state["claim"], premise(ev)) for ev in candidates])
    by_doc: dict[str, list[tuple[Evidence, Any]]] = defaultdict(list)
    for ev, res in zip(candidates, results, strict=True):
        if res.label != "nei":
            by_doc[ev.doc_id].append((ev, res))

    kept: list[Evidence] = []
    assessments: list[SourceAssessment] = []
    for doc_id in dict.fromkeys(ev.doc_id for ev in candidates):  # retrieval order
        judged = sorted(by_doc.get(doc_id, []), key=lambda p: p[1].p_nei)[: deps.settings.sentences_per_doc]
        if not judged:
            continue
        for ev, res in judged:
            kept.append(ev.model_copy(update={"stance": res.label, "stance_score": round(res.score, 4)}))
        score = sum(res.score for _, res in judged) / len(judged)
        label = grade(score)
        weight, inputs = reputation(deps.index.docs[doc_id])
        best_ev, best = max(judged, key=lambda p: abs(p[1].score))
        assessments.append(
            SourceAssessment(
                doc_id=doc_id,
                label=label,
                score=round(score, 4),
                reputation=weight,
                reputation_inputs=inputs,
                explanation=f"Sentence {best_ev.sentence_index + 1} {best.label} the claim "
                f"(supports {best.p_supports:.2f}, contradicts {best.p_contradicts:.2f}).",
            )
        )
    kept = [ev.model_copy(update={"n": i}) for i, ev in enumerate(kept, start=1)]
    pruned = len(dict.fromkeys(ev.doc_id for ev in candidates)) - len(assessments)
    notes = [f"assess: {pruned} retrieved abstract(s) had no sentence bearing on the claim"] if pruned else []
    return {"evidence": kept, "assessments": assessments, "notes": notes}
