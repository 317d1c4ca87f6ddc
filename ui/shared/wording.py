"""The words of a verdict and a source's stance that the chat and the terminal both show: plain text built from
labels and numbers only (no source, user or LLM text), so either may print it as it is; in the language the view
speaks (tools.text.i18n)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent.judge.reckoning import side_words
from agent.judge.scoring import NO_EVIDENCE
from agent.judge.sentence import verdict_sentence
from agent.state import SilentSource, SourceAssessment, Verdict
from tools.text.i18n import decimal, spoken, t

REVISED = {
    "recited": "cited to the source whose words it repeats",
    "hedged": "its source's hedge put back",
    "rewritten": "rewritten from its sources",
    "replaced": "quoted from its source",
}


def verdict_words(
    verdict: Mapping[str, Any], assessments: Sequence[Mapping[str, Any]] = (), silent: Sequence[Mapping[str, Any]] = ()
) -> str:
    """The verdict of a result dump in one sentence (agent.judge.sentence): the chat's, the terminal's and the MCP
    tool's verdict line, from the verdict, the labelled papers and the papers read and not counted."""
    return verdict_sentence(
        Verdict.model_validate(verdict),
        [SourceAssessment.model_validate(a) for a in assessments],
        [SilentSource.model_validate(s) for s in silent],
        spoken(),
    )


def stance_text(src: dict[str, Any]) -> str:
    """The source's label and stance: "Mostly False · 86% sure it supports the opposite" when the LLM read its
    direction against the opposite (in words: the figures stay the JSON's), "Mostly False · contradicts (0.81)" from
    the verifier alone, or, for a stance too weak to grade (label No Evidence), "No Evidence: leans supports (0.45),
    too weak to count"."""
    confidence = f" ({decimal(src['stance_confidence'])})" if src.get("stance_confidence") is not None else ""
    if src.get("p_claim") is not None and src.get("label") != NO_EVIDENCE:
        return f"{t(src['label'])} · {side_words(src['p_claim'])}"
    if src.get("label") == NO_EVIDENCE and src["stance"] != "nei":
        return t("{label}: leans {stance}{confidence}, too weak to count", label=t(NO_EVIDENCE),
                 stance=t(src["stance"]), confidence=confidence)
    label = f"{t(src['label'])} · " if src.get("label") else ""
    return f"{label}{t(src['stance'])}{confidence}"
