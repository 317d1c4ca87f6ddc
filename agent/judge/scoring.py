"""Labels and scores in one place (FRSC): the 7-grade local scale, source reputation, the global verdict
thresholds, and the mapping to SciFact labels."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from tools.corpus import Abstract
from tools.documents.design import DEFAULT_WEIGHTS, DESIGN_NAMES, classify
from tools.text.i18n import decimal, t, t_n

GRADES: list[tuple[str, float]] = [
    ("True", 1.0),
    ("Mostly True", 0.66),
    ("Somewhat True", 0.33),
    ("No Evidence", 0.0),
    ("Somewhat False", -0.33),
    ("Mostly False", -0.66),
    ("False", -1.0),
]
GRADE_SCORE = dict(GRADES)
NO_EVIDENCE = "No Evidence"

SUPPORTED = "Generally supported"
REFUTED = "Generally refuted"
LEANING_SUPPORTED = "Disputed but leaning towards supported"
LEANING_REFUTED = "Disputed but leaning towards refuted"
CONTROVERSIAL = "Generally controversial"
NOT_ENOUGH = "Not enough evidence"
# One-sided but weak evidence (no source disagrees, the weighted score is short of FRSC's 0.66): "Disputed" and
# "controversial" would claim a dispute nobody found.
WEAKLY_SUPPORTED = "Weakly supported"
WEAKLY_REFUTED = "Weakly refuted"
# Below the verdict confidence threshold the product says so instead of guessing; `leaning` keeps the label it
# would have given.
UNDECIDED = "Cannot decide"


def grade(score: float) -> str:
    """The nearest of the seven grades to a stance score in [-1, 1] (ties go towards No Evidence)."""
    return min(GRADES, key=lambda g: (abs(g[1] - score), abs(g[1])))[0]


def global_label(score: float) -> str:
    """FRSC global label of a weighted mean score (FRSC's thresholds)."""
    if score >= 0.66:
        return SUPPORTED
    if score <= -0.66:
        return REFUTED
    if 0.33 < score < 0.66:
        return LEANING_SUPPORTED
    if -0.66 < score < -0.33:
        return LEANING_REFUTED
    return CONTROVERSIAL


def to_scifact(label: str) -> str:
    """True / Mostly / Somewhat True -> SUPPORT; the False side -> CONTRADICT; No Evidence -> NEI."""
    value = GRADE_SCORE[label]
    if value > 0:
        return "SUPPORT"
    if value < 0:
        return "CONTRADICT"
    return "NEI"


def reputation(
    doc: Abstract, design_weights: Mapping[str, float] | None = None, today: date | None = None
) -> tuple[float, dict[str, Any]]:
    """Weight of one source in [0, 1]: its study design's place in the evidence hierarchy (``design_weights``,
    tools.documents.design.DEFAULT_WEIGHTS when None), citations (log-scaled), venue citedness, recency; 0.0 when
    retracted.

    Returns the weight and the inputs it came from, so the user can see why a source counts as it does.
    """
    design = classify(doc)
    factors = DEFAULT_WEIGHTS if design_weights is None else design_weights
    inputs: dict[str, Any] = {"source": doc.source} if doc.source else {}
    inputs |= {"design": design.design, "design_basis": design.basis, "design_factor": factors[design.design]}
    if doc.notices:
        inputs["notices"] = list(doc.notices)
    if doc.retracted:
        return 0.0, {**inputs, "retracted": True}
    weight = factors[design.design]
    if doc.citation_count is not None:
        inputs["citation_count"] = doc.citation_count
        weight *= 0.5 + 0.5 * min(1.0, math.log1p(doc.citation_count) / math.log1p(1000))
    if doc.venue_citedness is not None:
        # OpenAlex 2-year mean citedness of the venue: ~1 for a typical journal, 10+ for the most cited ones.
        inputs["venue"] = doc.venue
        inputs["venue_citedness"] = round(doc.venue_citedness, 2)
        weight *= 0.7 + 0.3 * min(1.0, math.log1p(max(0.0, doc.venue_citedness)) / math.log1p(10))
    if doc.year is not None:
        age = max(0, (today or date.today()).year - doc.year)
        inputs["year"] = doc.year
        weight *= 1.0 if age <= 10 else max(0.6, 1.0 - 0.02 * (age - 10))
    return round(weight, 4), inputs


def figure(x: float) -> str:
    """A factor or a citedness as the spoken language writes it, without trailing zeros: "0.35", "2.1", "12" in
    English, "0,35" in German, Spanish, French and Portuguese."""
    text = f"{x:g}"
    return text if "e" in text else decimal(x, len(text.partition(".")[2]))


def weight_in_words(inputs: Mapping[str, Any]) -> str:
    """What a source's weight came from, in the spoken language: "RETRACTED, animal study ×0.35, 120 citations,
    venue citedness 2.1 of Annals, 2019, via openalex"; "no metadata: full weight" when nothing is known. Venues,
    sources and notices are the data's own words."""
    parts = []
    if inputs.get("retracted"):
        parts.append(t("RETRACTED"))
    parts += [notice.upper() for notice in inputs.get("notices", [])]
    if "design" in inputs:
        name = t(DESIGN_NAMES.get(inputs["design"], inputs["design"]))
        parts.append(f"{name} ×{figure(inputs.get('design_factor', 1))}")
    if "citation_count" in inputs:
        parts.append(t_n(inputs["citation_count"], "{n} citation", "{n} citations"))
    if "venue_citedness" in inputs:
        citedness = figure(inputs["venue_citedness"])
        if inputs.get("venue"):
            parts.append(t("venue citedness {citedness} of {venue}", citedness=citedness, venue=inputs["venue"]))
        else:
            parts.append(t("venue citedness {citedness}", citedness=citedness))
    if "year" in inputs:
        parts.append(str(inputs["year"]))
    if inputs.get("source"):
        parts.append(t("via {source}", source=inputs["source"]))
    return ", ".join(parts) or t("no metadata: full weight")


def percent(p: float) -> str:
    """A probability as a reader's percentage, as the consensus line writes them: "97%"; never "0%" or "100%" for
    what is only nearly so."""
    shown = round(100 * p)
    if shown == 0 and p > 0:
        return t("under 1%")
    if shown == 100 and p < 1:
        return t("over 99%")
    return t("{n}%", n=shown)


def describe_reputation(weight: float | None, inputs: Mapping[str, Any] | None, verdict: bool = False) -> str:
    """One line for the user, in the spoken language: the weight and what it came from ("weight 0.83 (...)"), as
    "Verdict weight 0.83 (...)" with ``verdict``; "" when the source has no weight yet."""
    if weight is None:
        return ""
    shown, words = decimal(weight), weight_in_words(inputs or {})
    if verdict:
        return t("Verdict weight {weight} ({inputs})", weight=shown, inputs=words)
    return t("weight {weight} ({inputs})", weight=shown, inputs=words)


def counted(assessments: Sequence[Any]) -> list[Any]:
    """The assessed sources a verdict counts: a label off "No Evidence" (its grade, not the raw score) and a
    weight above 0 (not retracted)."""
    return [a for a in assessments if GRADE_SCORE[a.label] != 0 and a.reputation > 0]


def weak_designs_only(assessments: Sequence[Any], weak: Sequence[str]) -> list[str]:
    """The designs of the sources a verdict counts when every one of them is in ``weak`` (sorted), else []."""
    designs = [a.reputation_inputs.get("design") for a in counted(assessments)]
    if designs and all(d in weak for d in designs):
        return sorted(set(designs))
    return []


def weighted_verdict(scored: Sequence[tuple[float, float]]) -> tuple[str, float, float, int]:
    """(label, weighted score, unweighted score, sources counted) from (local score, weight) pairs.
    No-Evidence sources (score 0) do not count. Sources on one side only give that side's label, "Weakly ..."
    below FRSC's 0.66; FRSC's disputed and controversial labels need sources on both sides."""
    counted = [(s, w) for s, w in scored if s != 0.0]
    if not counted:
        return NOT_ENOUGH, 0.0, 0.0, 0
    total_w = sum(w for _, w in counted)
    # rounded before the thresholds are compared, so that equal weights of any size give the same label
    weighted = round(sum(s * w for s, w in counted) / total_w, 9) if total_w > 0 else 0.0
    unweighted = sum(s for s, _ in counted) / len(counted)
    if total_w <= 0:
        label = NOT_ENOUGH
    elif all(s > 0 for s, _ in counted):
        label = SUPPORTED if weighted >= 0.66 else WEAKLY_SUPPORTED
    elif all(s < 0 for s, _ in counted):
        label = REFUTED if weighted <= -0.66 else WEAKLY_REFUTED
    else:
        label = global_label(weighted)
    return label, round(weighted, 4), round(unweighted, 4), len(counted)


def verdict_sign(label: str) -> int:
    """+1 for a supported verdict, -1 for a refuted one, 0 for no direction (controversial, not enough)."""
    if label in (SUPPORTED, WEAKLY_SUPPORTED, LEANING_SUPPORTED):
        return 1
    if label in (REFUTED, WEAKLY_REFUTED, LEANING_REFUTED):
        return -1
    return 0


def verdict_confidence(label: str, votes: Sequence[tuple[float, float, float]], no_stance: float) -> float:
    """How sure the verdict is, from (local score, weight, calibrated stance confidence) of each source.

    A directional verdict: the share of the counted weight on its side times the weighted mean stance confidence of
    the sources on that side (one confident source against none: its confidence; two sources that disagree: at
    most half). No direction: the weighted mean confidence of all counted sources, or, with none counted,
    ``no_stance``, the calibrated probability that the strongest candidate sentence bears on nothing."""
    counted = [(s, w, c) for s, w, c in votes if s != 0.0 and w > 0]
    if not counted:
        return round(no_stance, 4)
    total = sum(w for _, w, _ in counted)
    direction = verdict_sign(label)
    if direction == 0:
        return round(sum(w * c for _, w, c in counted) / total, 4)
    own = [(w, c) for s, w, c in counted if (s > 0) == (direction > 0)]
    own_w = sum(w for w, _ in own)
    return round(own_w / total * sum(w * c for w, c in own) / own_w, 4) if own_w else 0.0
