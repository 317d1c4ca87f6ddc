"""Papers read and not counted: how a source set aside by the gate, the abstract reader or an unread reading is
listed ("Read, not counted"), with its reason in words, and the order they are listed in."""

from __future__ import annotations

from agent.judge.calibration import JudgeCalibration
from agent.judge.scoring import percent
from agent.state import SilentSource, SourceAssessment
from tools.text.i18n import written

# a paper this close below the gate's threshold is pointed out to the user as one to read: the gate reads whether the
# few sentences read report a finding on the claim, and SciFact's refuting papers often sit just below it
CLOSE_TO_THE_GATE = 0.1


def close_to_the_gate(bearing: float, threshold: float) -> bool:
    """Whether a paper set aside by the gate is close enough below its threshold to be pointed out to the user."""
    return bearing >= threshold - CLOSE_TO_THE_GATE


def below_the_gate(bearing: float, threshold: float) -> str:
    """Why a paper the LLM read does not count, in plain words; it says what the gate read (the sentences, not the
    whole paper), and a paper close to the line is marked as worth the user's own reading."""
    odds = {"bears": percent(bearing), "gate": percent(threshold)}
    if close_to_the_gate(bearing, threshold):
        return written("Not counted, but close: the LLM cannot tell whether the sentences it read report a finding "
                       "on the claim ({bears} likely to report a finding on the claim; papers count from {gate}). "
                       "Worth reading yourself.", **odds)  # fmt: skip
    return written("Not counted: the LLM reads no finding on the claim in the sentences it read ({bears} likely to "
                   "report a finding on the claim; papers count from {gate}).", **odds)


def set_aside(
    a: SourceAssessment, title: str, bearing: float, reason: str, unread: bool = False, close: bool = False
) -> SilentSource:
    """An assessed source that does not count after all: read (by the verifier only, when ``unread``), and why
    not; ``close`` when the gate set it aside just below its threshold."""
    return SilentSource(
        doc_id=a.doc_id,
        title=title,
        reputation=a.reputation,
        reputation_inputs=a.reputation_inputs,
        bearing=bearing,
        reason=reason,
        unread=unread,
        close=close,
    )


def listing_order(silent: list[SilentSource]) -> list[SilentSource]:
    """The papers read and not counted in the order they are listed: those the gate set aside close to its threshold
    first, the closest first (they are the ones worth the user's own reading), then the others as they came."""
    return sorted(silent, key=lambda s: (not s.close, -(s.bearing or 0.0) if s.close else 0.0))


def unread_reading(a: SourceAssessment, cal: JudgeCalibration, title: str, why: str) -> SourceAssessment | SilentSource:
    """A source the LLM did not read: the verifier's label where the verifier alone stands in for the LLM and its
    gate passes the source, else listed as not read, with what the verifier reads, and not counted."""
    bearing = a.bearing if a.bearing is not None else 1.0
    if cal.verifier_stands_in and cal.verifier_passes(bearing):
        return a
    if a.score == 0:
        leaning = written("on neither side")
    else:
        leaning = written("on the claim's side") if a.score > 0 else written("against the claim")
    why_not = written("Not read by the LLM: {why}. The verifier alone is not trusted to count it (it places the "
                      "paper {leaning}, {bears} likely to report a finding on the claim).", why=why, leaning=leaning,
                      bears=percent(bearing))
    return set_aside(a, title, bearing, why_not, unread=True)
