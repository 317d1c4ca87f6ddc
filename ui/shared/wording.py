"""The words of a verdict and a source's stance that the chat and the terminal both show: plain text built from
labels and numbers only (no source, user or LLM text), so either may print it as it is."""

from __future__ import annotations

from typing import Any

from agent.judge.reckoning import supported_side
from agent.judge.scoring import NO_EVIDENCE
from agent.paper_counts import papers, side_counts

REVISED = {
    "recited": "cited to the source whose words it repeats",
    "hedged": "its source's hedge put back",
    "rewritten": "rewritten from its sources",
    "replaced": "quoted from its source",
}


def verdict_details(verdict: dict[str, Any]) -> str:
    """Confidence, the sources on each side and the scores of a verdict, in one line (the chat and the CLI)."""
    leaning = f"leaning {verdict['leaning']}, too unsure to decide · " if verdict.get("leaning") else ""
    counts = side_counts(verdict.get("supporting", 0), verdict.get("contradicting", 0), verdict.get("irrelevant", 0))
    return (
        f"{leaning}confidence {verdict.get('confidence', 0.0):.2f} · {counts} · weighted score "
        f"{verdict['score']:+.2f} · unweighted {verdict['unweighted_score']:+.2f} · "
        f"{papers(verdict.get('counted_sources', 0))} counted"
    )


def stance_text(src: dict[str, Any]) -> str:
    """The source's label and stance: "Mostly False · supports the opposite (P(claim) 0.14, 0.81)" when the LLM read
    its direction, "Mostly False · contradicts (0.81)" from the verifier alone, or, for a stance too weak to grade
    (label No Evidence), "No Evidence: leans supports (0.45), too weak to count"."""
    confidence = f" ({src['stance_confidence']:.2f})" if src.get("stance_confidence") is not None else ""
    if src.get("p_claim") is not None and src.get("label") != NO_EVIDENCE:
        side = supported_side(src["p_claim"])
        return f"{src['label']} · {side} (P(claim) {src['p_claim']:.2f}, confidence {src['stance_confidence']:.2f})"
    if src.get("label") == NO_EVIDENCE and src["stance"] != "nei":
        return f"{NO_EVIDENCE}: leans {src['stance']}{confidence}, too weak to count"
    label = f"{src['label']} · " if src.get("label") else ""
    return f"{label}{src['stance']}{confidence}"
