"""The verdict rule (FRSC): the reputation-weighted mean of the local scores of every source whose stance counts ->
global label, with a calibrated confidence, and "Cannot decide" below the least confidence a verdict is given at."""

from __future__ import annotations

from collections.abc import Sequence

from agent.judge.scoring import (
    GRADE_SCORE,
    NOT_ENOUGH,
    UNDECIDED,
    counted,
    verdict_confidence,
    weak_designs_only,
    weighted_verdict,
)
from agent.state import SourceAssessment, Verdict
from tools.documents.design import DEFAULT_WEAK


def decide(
    assessments: Sequence[SourceAssessment],
    silent: int,
    no_stance: float,
    min_confidence: float,
    weak: Sequence[str] = DEFAULT_WEAK,
) -> Verdict:
    """The verdict over the assessed sources; the SciFact eval calls this too, so it measures the product rule.
    ``weak``: the study designs it says it rests on when they are all it counts."""
    votes = [(GRADE_SCORE[a.label], a.reputation, a.stance_confidence) for a in assessments]
    label, score, unweighted, counted = weighted_verdict([(s, w) for s, w, _ in votes])
    decided = Verdict(
        label=label,
        score=score,
        unweighted_score=unweighted,
        counted_sources=counted,
        confidence=verdict_confidence(label, votes, no_stance),
        supporting=sum(1 for s, w, _ in votes if s > 0 and w > 0),
        contradicting=sum(1 for s, w, _ in votes if s < 0 and w > 0),
        irrelevant=silent + sum(1 for s, _, _ in votes if s == 0),
        weak_designs=weak_designs_only(assessments, weak),
    )
    return abstain(decided, min_confidence)


def abstain(verdict: Verdict, min_confidence: float) -> Verdict:
    """The verdict as given at ``min_confidence``: "Cannot decide", leaning to its label, when it takes a side (or
    finds a dispute) with less confidence; "Not enough evidence" stands."""
    if verdict.label != NOT_ENOUGH and verdict.confidence < min_confidence:
        return verdict.model_copy(update={"label": UNDECIDED, "leaning": verdict.label})
    return verdict


def thin(assessments: Sequence[SourceAssessment], min_confidence: float) -> bool:
    """Too little to rest a verdict on: no source bears on the claim with at least ``min_confidence``, or a single
    source is all that bears on it."""
    bearing = counted(assessments)
    return len(bearing) <= 1 or not any(a.stance_confidence >= min_confidence for a in bearing)
