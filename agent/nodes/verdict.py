"""Verdict (FRSC): reputation-weighted mean of the local scores -> global label; unweighted score too."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.scoring import GRADE_SCORE, weighted_verdict
from agent.state import ClaimState, Deps, Verdict


@timed("verdict")
def verdict(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    scored = [(GRADE_SCORE[a.label], a.reputation) for a in state.get("assessments", [])]
    label, score, unweighted, counted = weighted_verdict(scored)
    return {"verdict": Verdict(label=label, score=score, unweighted_score=unweighted, counted_sources=counted)}
