"""The two-part judge's arithmetic: whether an abstract bears on the claim (the evidence gate, from the verifier) and
which way (the LLM's choice between the claim and its opposite, agent/direction.py), each a calibrated probability,
and the 7-grade label they make together.

* The gate: P(the abstract is evidence for or against the claim) from the verifier's strongest bearing sentence of
  the abstract (1 - P(nei), as a logit), by logistic regression. The model has a weight for the retrieval rank too,
  and the shipped calibration sets it to 0: on SciFact the rank predicts the gold abstract only because each claim
  was written from one abstract. Below ``gate_threshold`` (chosen for a target precision) the abstract never counts:
  it is listed as read, bearing on neither side.
* The direction: the LLM's P(claim) averaged over both letter orders is compressed towards 0.5 by a small model's
  letter preference; a logistic on its logit (Platt scaling) turns it into a probability that is right as often as
  it says. The model has a weight for the verifier's own direction too, and the shipped calibration sets it to 0
  (evals/training/judge_calibration.py says why).
* The label: the grade nearest to 2 * P(claim) - 1, so a source whose direction the LLM cannot tell is "No
  Evidence" (too weak to count), and the stance confidence is P(the chosen direction). P(bears) is not multiplied in:
  it estimates P(SciFact's annotators cite the abstract), which is low even for abstracts that bear (SciFact's gold
  is one abstract per claim, and incomplete), and as a factor it sent most held-out verdicts below MIN_CONFIDENCE
  (evals/results/judge_calibration_heldout.json); the gate has already decided that the source bears.

Every number is fitted on held-out SciFact train claims by ``python -m evals.training.judge_calibration`` and read
from ``agent/judge_calibration.json``; the defaults below are the identity (no calibration) for a missing file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from agent.scoring import grade

CALIBRATION_FILE = Path(__file__).with_name("judge_calibration.json")


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class Stance:
    label: str  # the 7-grade label
    score: float  # 2 * P(claim) - 1: the signed direction
    p_claim: float  # calibrated P(the evidence supports the claim rather than its opposite)
    confidence: float  # P(the chosen direction), for a source past the gate

    @property
    def side(self) -> str:
        return "supports" if self.score > 0 else "contradicts" if self.score < 0 else "nei"


@dataclass(frozen=True)
class JudgeCalibration:
    # gate: intercept, weight of logit(max 1 - P(nei)), weight of the retrieval rank (0 = first)
    gate_weights: tuple[float, float, float] = (0.0, 1.0, 0.0)
    gate_threshold: float = 0.5
    # direction: P(claim) = sigmoid(bias + w_llm * logit(LLM's P(claim)) + w_verifier * logit(verifier's P(claim)))
    direction_weights: tuple[float, float, float] = (0.0, 1.0, 0.0)
    fitted: dict[str, Any] = field(default_factory=dict)  # what it was fitted on, and the held-out figures

    def bearing(self, verifier_bearing: float, rank: int) -> float:
        """P(the abstract bears on the claim) from its strongest sentence's 1 - P(nei) and its retrieval rank."""
        b0, b1, b2 = self.gate_weights
        return round(_sigmoid(b0 + b1 * _logit(verifier_bearing) + b2 * rank), 4)

    def passes(self, bearing: float) -> bool:
        return bearing >= self.gate_threshold

    def direction(self, llm_p_claim: float, verifier_p_claim: float) -> float:
        """P(claim) from the LLM's choice and the verifier's supports / (supports + contradicts), calibrated."""
        c0, c1, c2 = self.direction_weights
        return round(_sigmoid(c0 + c1 * _logit(llm_p_claim) + c2 * _logit(verifier_p_claim)), 4)

    def stance(self, llm_p_claim: float, verifier_p_claim: float) -> Stance:
        """The label of an abstract that passed the gate, from the two readings of its direction."""
        p = self.direction(llm_p_claim, verifier_p_claim)
        score = round(2 * p - 1, 4)
        return Stance(label=grade(score), score=score, p_claim=p, confidence=round(max(p, 1 - p), 4))


@cache
def load_calibration(path: Path = CALIBRATION_FILE) -> JudgeCalibration:
    """The fitted calibration; the identity when the file is missing."""
    if not path.is_file():
        return JudgeCalibration()
    raw = json.loads(path.read_text())
    return JudgeCalibration(
        gate_weights=tuple(raw["gate_weights"]),
        gate_threshold=float(raw["gate_threshold"]),
        direction_weights=tuple(raw["direction_weights"]),
        fitted=dict(raw.get("fitted", {})),
    )
