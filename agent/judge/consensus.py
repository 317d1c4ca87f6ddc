"""The consensus view of a check: how the sources read for a claim divide into supports, contradicts and no
evidence, by count and by reputation weight, in the spirit of Consensus.app's "consensus meter".

It counts every abstract that bears on the claim or was read for it: each labelled abstract (`assessments`) on the
side of its label's grade (agent.judge.scoring.GRADE_SCORE; a "No Evidence" label counts as no evidence, as in the
verdict, even when its raw score leans), and each silent abstract (`silent`) as no evidence. A retracted abstract
weighs 0 and stays out of the three sides; it is counted apart so the view can say it was left out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from agent.judge.scoring import GRADE_SCORE
from agent.result import CheckResult
from agent.state import SilentSource, SourceAssessment

Side = Literal["supports", "contradicts", "no_evidence"]
SIDES: tuple[Side, ...] = ("supports", "contradicts", "no_evidence")


class Share(BaseModel):
    """One side of the consensus: how many sources, their summed weight, and both shares in [0, 1]."""

    count: int = 0
    weight: float = 0.0
    share: float = 0.0  # count / sources
    weighted_share: float = 0.0  # weight / the weight of all sources (0 when they all weigh 0)


class Consensus(BaseModel):
    supports: Share = Field(default_factory=Share)
    contradicts: Share = Field(default_factory=Share)
    no_evidence: Share = Field(default_factory=Share)
    sources: int = 0  # the sources it rests on: every one read, retracted ones left out
    retracted: int = 0  # retracted sources read, left out of the sides (weight 0)
    weight: float = 0.0  # the summed weight of the sources it rests on

    def side(self, name: Side) -> Share:
        return {"supports": self.supports, "contradicts": self.contradicts, "no_evidence": self.no_evidence}[name]

    def percentages(self, weighted: bool) -> tuple[int, int, int]:
        """Whole percentages of supports, contradicts and no evidence that add up to 100 (largest remainder), or
        (0, 0, 0) when there is nothing to share."""
        raw = [100 * (s.weighted_share if weighted else s.share) for s in map(self.side, SIDES)]
        if sum(raw) == 0:
            return 0, 0, 0
        floors = [int(r) for r in raw]
        order = sorted(range(3), key=lambda i: raw[i] - floors[i], reverse=True)
        for i in order[: 100 - sum(floors)]:
            floors[i] += 1
        return floors[0], floors[1], floors[2]


def _side(score: float) -> Side:
    return "supports" if score > 0 else "contradicts" if score < 0 else "no_evidence"


def tally(assessments: Sequence[SourceAssessment], silent: Sequence[SilentSource]) -> Consensus:
    """The consensus over labelled abstracts and silent ones."""
    votes: list[tuple[Side, float, bool]] = [
        (_side(GRADE_SCORE[a.label]), a.reputation, bool(a.reputation_inputs.get("retracted"))) for a in assessments
    ]
    votes += [("no_evidence", s.reputation, bool(s.reputation_inputs.get("retracted"))) for s in silent]
    kept = [(side, max(0.0, weight)) for side, weight, retracted in votes if not retracted]
    total_w = sum(w for _, w in kept)
    shares = {}
    for name in SIDES:
        count = sum(1 for side, _ in kept if side == name)
        weight = sum(w for side, w in kept if side == name)
        shares[name] = Share(
            count=count,
            weight=round(weight, 4),
            share=round(count / len(kept), 4) if kept else 0.0,
            weighted_share=round(weight / total_w, 4) if total_w > 0 else 0.0,
        )
    return Consensus(**shares, sources=len(kept), retracted=len(votes) - len(kept), weight=round(total_w, 4))


def consensus(result: CheckResult) -> Consensus:
    """The consensus over every source a check read for its claim."""
    return tally(result.assessments, result.silent)
