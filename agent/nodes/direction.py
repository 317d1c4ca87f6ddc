"""Direction, the judge's second part: for every abstract that passed the evidence gate, the LLM chooses which of the
claim and its opposite the abstract's evidence sentences support (agent/direction.py), and the abstract's label
becomes the two-part judge's (agent.judge: the grade of the calibrated direction of a source past the gate).

The verdict before this node is provisional (the verifier's labels); the verdict after it is the judged one. Each
source is asked once per check (``directions`` keeps the answers, so a later search round asks only about new
sources). When the LLM is down, or the check's direction time (DIRECTION_SECONDS) runs out, the sources not yet read
keep the verifier's labels and a note says so; with JUDGE_DIRECTION=verifier the node does nothing.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from langgraph.runtime import Runtime

from agent.direction import choose, evidence_text, opposite_of
from agent.judge import load_calibration
from agent.llm import LLMUnavailableError
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Evidence, SourceAssessment, Usage


def source_key(doc_id: str, sentences: list[Evidence], opposite: str) -> str:
    return f"{doc_id}|{','.join(str(ev.sentence_index) for ev in sentences)}|{opposite}"


def directed(a: SourceAssessment, llm_p_claim: float) -> SourceAssessment:
    """The assessment relabelled by the two-part judge."""
    cal = load_calibration()
    stance = cal.stance(llm_p_claim, a.verifier_p_claim if a.verifier_p_claim is not None else 0.5)
    side = {"supports": "the claim", "contradicts": "its opposite", "nei": "neither statement clearly"}[stance.side]
    return a.model_copy(
        update={
            "label": stance.label,
            "score": stance.score,
            "p_claim": stance.p_claim,
            "stance_confidence": stance.confidence,
            "judged_by": "verifier+llm",
            "explanation": f"The evidence supports {side} (P(claim) {stance.p_claim:.2f}"
            + (f"; P(bears on the claim) {a.bearing:.2f})." if a.bearing is not None else ")."),
        }
    )


@timed("direction")
def direction(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    judge = deps.settings.judge
    assessments = state.get("assessments", [])
    if judge.direction != "llm" or not assessments:
        return {"directed": True}
    if state.get("llm_error"):
        return {
            "directed": True,
            "notes": [
                f"direction: the LLM is unavailable ({state['llm_error']}); each source's direction is the "
                "verifier's alone"
            ],
        }
    claim = state["claim"]
    usage = Usage()
    notes: list[str] = []
    update: dict[str, Any] = {}
    opposite = state.get("opposite", "")
    if not opposite:
        opposite, source, used = opposite_of(None, claim)
        update |= {"opposite": opposite, "opposite_source": source}
        usage = usage + used
    sentences: dict[str, list[Evidence]] = defaultdict(list)
    for ev in state.get("evidence", []):
        sentences[ev.doc_id].append(ev)
    asked = dict(state.get("directions", {}))
    start, left, error = time.perf_counter(), 0, ""
    judged: list[SourceAssessment] = []
    for a in assessments:
        key = source_key(a.doc_id, sentences[a.doc_id], opposite)
        if key not in asked and not error and time.perf_counter() - start < judge.direction_seconds:
            try:
                choice = choose(deps.llm, evidence_text(deps, a.doc_id, sentences[a.doc_id]), claim, opposite)
            except LLMUnavailableError as e:
                error = str(e)
            else:
                asked[key] = choice.p_claim
                usage = usage + choice.usage
        if key in asked:
            judged.append(directed(a, asked[key]))
        else:
            judged.append(a)
            left += 1
    if error:
        notes.append(f"direction: the LLM is unavailable ({error}); {left} source(s) keep the verifier's reading")
        update["llm_error"] = error
    elif left:
        notes.append(
            f"direction: the LLM's time for reading direction (DIRECTION_SECONDS={judge.direction_seconds:g}) ran "
            f"out; {left} source(s) keep the verifier's reading"
        )
    # the LLM's reading becomes the stance of the source's sentences; a source it did not read keeps the verifier's
    sides = {
        a.doc_id: ("supports" if a.score > 0 else "contradicts" if a.score < 0 else "nei")
        for a in judged
        if a.judged_by == "verifier+llm"
    }
    evidence = [ev.model_copy(update={"stance": sides.get(ev.doc_id, ev.stance)}) for ev in state.get("evidence", [])]
    return {
        **update,
        "assessments": judged,
        "evidence": evidence,
        "directions": asked,
        "directed": True,
        "usage": usage,
        "notes": notes,
    }
