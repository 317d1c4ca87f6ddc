"""Verdict (FRSC): the reputation-weighted mean of the local scores of every source whose stance counts -> global
label, with a calibrated confidence; below ``judge.min_confidence`` the verdict is "Cannot decide". A verdict reached
before the LLM has read each source's direction (agent/nodes/judge_sources.py), or before its search questions were
searched, is provisional and says what it awaits (the graph then runs that); a final one that rests on too little
asks for another search round while SEARCH_ROUNDS allows (agent/nodes/reformulate)."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from agent.judge.verdict import decide, thin
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps


@timed("verdict")
def verdict(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    v = decide(
        state.get("assessments", []),
        len(state.get("silent", [])),
        state.get("no_stance_confidence", 1.0),
        runtime.context.settings.judge.min_confidence,
        runtime.context.settings.judge.weak_designs,
    )
    settings = runtime.context.settings
    awaiting = awaited(state, settings)
    # sources the LLM did not read (down, or out of time): counted on the verifier's reading, or listed, not counted
    unread = (
        sum(1 for a in state.get("assessments", []) if a.judged_by == "verifier" and a.score != 0)
        + sum(1 for s in state.get("silent", []) if s.unread)
        if settings.judge.direction != "verifier" and state.get("directed", False)
        else 0
    )
    again = (
        awaiting is None
        and not state.get("llm_error")
        and state.get("rounds", 0) < settings.retrieval.search_rounds
        and thin(state.get("assessments", []), settings.judge.min_confidence)
    )
    return {
        "verdict": v.model_copy(update={"provisional": awaiting is not None, "awaiting": awaiting, "unread": unread}),
        "search_again": again,
    }


def awaited(state: ClaimState, settings: Any) -> Literal["judgement", "questions"] | None:
    """What the check still has to do before its verdict is final: the reading of the sources' direction (the
    abstract reader's, and the LLM's while it answers), then the LLM's search questions (LLM_QUESTIONS)."""
    if (
        settings.judge.direction != "verifier"
        and state.get("assessments")
        and not state.get("directed", False)
        and not state.get("llm_error")
    ):
        return "judgement"
    if settings.retrieval.llm_questions and not state.get("questions_asked", False):
        return "questions"
    return None
