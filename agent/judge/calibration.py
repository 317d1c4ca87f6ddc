"""The two-part judge's arithmetic: whether an abstract bears on the claim (the gate, from the verifier and the LLM
together) and which way (the LLM's choice between the claim and its opposite, agent/judge/direction.py), each a
calibrated probability, and the 7-grade label they make together.

* The verifier's gate: P(the abstract bears on the claim) from the verifier's strongest sentence of the abstract
  (1 - P(nei), as a logit), by logistic regression. It decides alone with JUDGE_DIRECTION=verifier, at
  ``verifier_threshold`` (the full gate's precision when the verifier alone reaches it, else its own best F1). It
  stands in for the LLM on an abstract the LLM did not read (down, or its time ran out) only when it reaches the
  full gate's precision (``verifier_stands_in``); otherwise such an abstract is listed as not read, never counted,
  and the verdict says it is provisional. It also screens what the LLM is asked: below ``ask_floor`` the abstract
  does not bear and the LLM is not asked.
* The gate: P(the abstract bears on the claim) from the verifier's strongest sentence and the LLM's P(Yes) to "does
  the evidence report a finding on whether the claim is true?", by logistic regression on both logits. What the
  question reads (the shown sentences or the abstract around them, of the claim alone or of the claim and its
  opposite) is part of the calibration: the weights hold only for the reading they were fitted on. The verifier
  reads shared topic as bearing; the LLM reads the claim as a question. Below ``gate_threshold`` (chosen for a
  target precision) the abstract never counts: it is listed as read, "not about the claim", with the reason.
* The direction: the LLM's P(claim) averaged over both letter orders is compressed towards 0.5 by a small model's
  letter preference; a logistic on its logit (Platt scaling), fitted on abstracts that bear, turns it into a
  probability that is right as often as it says. It is asked only of abstracts past the gate, so an off-topic lean
  is never amplified into a label. What the question reads (the shown sentences, or the abstract around them with
  ``direction_reads`` "context") is part of the calibration, as for the gate. With a third weight the verifier votes
  too: the logit of its own P(claim) on the strongest sentence (supports / (supports + contradicts)) is added to the
  LLM's. The two read differently (the verifier was trained on SciFact's rationales, the LLM reads the claim against
  its opposite), so where the LLM sits at chance the verifier can still tell the side. The shipped calibration has
  two weights: with today's verifier the vote refuted fewer of SciFact dev's refuted claims
  (evals/results/verifier_vote/README.md).
* The label: the grade nearest to 2 * P(claim) - 1, so a source whose direction the LLM cannot tell is "No
  Evidence" (too weak to count), and the stance confidence is P(the chosen direction). P(bears) is not multiplied in:
  it estimates P(SciFact's annotators cite the abstract), which is low even for abstracts that bear (SciFact's gold
  is one abstract per claim, and incomplete); the gate has already decided that the source bears.

Every number is fitted on held-out SciFact train claims by ``python -m evals.training.judge_calibration`` and read
from ``agent/judge/judge_calibration.json``; the defaults below are the identity (no calibration) for a missing file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from agent.judge.scoring import grade
from tools.models.verifier_artifact import Stance

CALIBRATION_FILE = Path(__file__).with_name("judge_calibration.json")


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class JudgedLabel:
    """A source's label from the LLM's calibrated direction: the 7-grade label, its signed score, P(claim) and the
    confidence of the side it takes."""

    label: str  # the 7-grade label
    score: float  # 2 * P(claim) - 1: the signed direction
    p_claim: float  # calibrated P(the evidence supports the claim rather than its opposite)
    confidence: float  # P(the chosen direction), for a source past the gate

    @property
    def stance(self) -> Stance:
        return stance_of(self.score)


def stance_of(score: float) -> Stance:
    """A signed direction as the verifier names a stance: "supports", "contradicts", or "nei" at exactly 0."""
    return "supports" if score > 0 else "contradicts" if score < 0 else "nei"


@dataclass(frozen=True)
class ReaderBand:
    """Where the abstract reader decides (agent.judge.reader): it sets a paper aside below ``aside_below`` P(bears);
    from ``decide_from`` P(bears) the paper passes the gate on its word, and it labels the paper itself when it is
    at least ``sure`` of the side (never with ``sure`` None: the LLM and the verifier read the side). With
    ``gate_floor`` set, such a paper passes only where the gate's own reading (the LLM's and the verifier's) is at
    least ``gate_floor`` instead of the gate's threshold: the reader lowers the bar the gate sets, and does not
    replace it. The defaults stand for a missing fit."""

    aside_below: float = 0.2
    decide_from: float = 0.8
    sure: float | None = 0.8
    gate_floor: float | None = None


@dataclass(frozen=True)
class JudgeCalibration:
    # the verifier's gate: intercept, weight of logit(strongest sentence's 1 - P(nei))
    verifier_gate: tuple[float, float] = (0.0, 1.0)
    verifier_threshold: float = 0.5  # what the verifier's gate passes when it decides alone
    # whether the verifier alone stands in for the LLM on an abstract the LLM did not read (down, or out of time):
    # only when at ``verifier_threshold`` it reaches the full gate's held-out precision
    verifier_stands_in: bool = True
    ask_floor: float = 0.0  # below this verifier P(bears) the LLM is not asked: the abstract does not bear
    # the gate: intercept, weight of logit(strongest sentence's 1 - P(nei)), weight of logit(the LLM's P(Yes))
    gate_weights: tuple[float, float, float] = (0.0, 1.0, 1.0)
    gate_threshold: float = 0.5
    # what the LLM's bearing question reads, as the gate was fitted on it: "shown" (the evidence sentences shown),
    # or "context" (the abstract around them, agent.judge.direction.abstract_text); and whether it is asked of the
    # claim's opposite too, P(Yes) being the mean of the two or, with gate_combines "max", the higher: a null
    # finding ("no association was found") is a finding on the opposite that a small model reads as none on the claim
    gate_reads: str = "shown"
    gate_asks_opposite: bool = False
    gate_combines: str = "mean"
    # what the LLM's direction question reads, as its weights were fitted on it: "shown" (the evidence sentences
    # shown) or "context" (the abstract around them): the side of a finding is often in the sentence beside the one
    # the selector picked ("no association was found"), and the shown sentences alone leave the LLM at chance
    direction_reads: str = "shown"
    # direction: P(claim) = sigmoid(bias + weight * logit(the LLM's P(claim)) [+ weight * logit(the verifier's
    # P(claim))]): two weights read the LLM alone, three add the verifier's vote
    direction_weights: tuple[float, ...] = (0.0, 1.0)
    reader_band: ReaderBand = field(default_factory=ReaderBand)  # fitted by evals/training/reader_band.py
    # the band of the reader alone (JUDGE_DIRECTION=reader), fitted by the same command on the same replay: it labels
    # what it passes, since nobody else reads a side
    reader_alone_band: ReaderBand = field(default_factory=ReaderBand)
    fitted: dict[str, Any] = field(default_factory=dict)  # what it was fitted on, and the held-out figures

    def verifier_bearing(self, strongest: float) -> float:
        """P(the abstract bears on the claim) from its strongest sentence's 1 - P(nei) alone."""
        a0, a1 = self.verifier_gate
        return round(sigmoid(a0 + a1 * logit(strongest)), 4)

    def bearing(self, strongest: float, llm_p_bears: float) -> float:
        """P(the abstract bears on the claim) from its strongest sentence's 1 - P(nei) and the LLM's P(Yes)."""
        b0, b1, b2 = self.gate_weights
        return round(sigmoid(b0 + b1 * logit(strongest) + b2 * logit(llm_p_bears)), 4)

    def llm_bears(self, p_claim: float, p_opposite: float) -> float:
        """The LLM's P(Yes) of the claim and of its opposite made one, as the gate was fitted (``gate_combines``)."""
        return round(max(p_claim, p_opposite) if self.gate_combines == "max" else (p_claim + p_opposite) / 2, 4)

    def passes(self, bearing: float) -> bool:
        return bearing >= self.gate_threshold

    def verifier_passes(self, verifier_bearing: float) -> bool:
        return verifier_bearing >= self.verifier_threshold

    def worth_asking(self, verifier_bearing: float) -> bool:
        return verifier_bearing >= self.ask_floor

    @property
    def direction_reads_verifier(self) -> bool:
        return len(self.direction_weights) > 2

    def direction(self, llm_p_claim: float, verifier_p_claim: float | None = None) -> float:
        """P(claim) from the LLM's choice between the claim and its opposite, with the verifier's own P(claim) as a
        vote when the calibration weighs it, calibrated. A missing verifier reading counts as 0.5, an even vote; every
        source the judge assesses has one (agent.judge.sources)."""
        c0, c1, *verifier = self.direction_weights
        z = c0 + c1 * logit(llm_p_claim)
        if verifier:
            z += verifier[0] * logit(0.5 if verifier_p_claim is None else verifier_p_claim)
        return round(sigmoid(z), 4)

    def stance(self, llm_p_claim: float, verifier_p_claim: float | None = None) -> JudgedLabel:
        """The label of an abstract that passed the gate, from the LLM's reading of its direction (and the
        verifier's, when the calibration weighs it)."""
        p = self.direction(llm_p_claim, verifier_p_claim)
        score = round(2 * p - 1, 4)
        return JudgedLabel(label=grade(score), score=score, p_claim=p, confidence=round(max(p, 1 - p), 4))


@cache
def load_calibration(path: Path = CALIBRATION_FILE) -> JudgeCalibration:
    """The fitted calibration; the identity when the file is missing."""
    if not path.is_file():
        return JudgeCalibration()
    raw = json.loads(path.read_text())
    return JudgeCalibration(
        verifier_gate=tuple(raw["verifier_gate"]),
        verifier_threshold=float(raw["verifier_threshold"]),
        verifier_stands_in=bool(raw["verifier_stands_in"]),
        ask_floor=float(raw["ask_floor"]),
        gate_weights=tuple(raw["gate_weights"]),
        gate_threshold=float(raw["gate_threshold"]),
        gate_reads=str(raw.get("gate_reads", "shown")),
        gate_asks_opposite=bool(raw.get("gate_asks_opposite", False)),
        gate_combines=str(raw.get("gate_combines", "mean")),
        direction_reads=str(raw.get("direction_reads", "shown")),
        direction_weights=tuple(raw["direction_weights"]),
        reader_band=ReaderBand(**raw["reader_band"]) if "reader_band" in raw else ReaderBand(),
        reader_alone_band=ReaderBand(**raw["reader_alone_band"]) if "reader_alone_band" in raw else ReaderBand(),
        fitted=dict(raw.get("fitted", {})),
    )
