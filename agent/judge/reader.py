"""The abstract reader's part in the judge: before the LLM is asked anything, a trained cross-encoder reads the claim
against each paper's whole abstract (tools.models.verifier.get_reader; tools.text.premise.whole_abstract), as the
SciFact leaders read (MultiVerS, ARSJoint), and gives P(supports), P(refutes) and P(does not bear).

It decides by its band (``ReaderBand``, fitted on held-out SciFact train claims by evals/training/reader_band.py and
kept in agent/judge/judge_calibration.json):

* P(bears) = 1 - P(does not bear) below ``aside_below``: the paper is set aside, read and not counted;
* P(bears) at or above ``decide_from``: the paper reports a finding on the claim, and passes the gate on the reader's
  word. It counts with the reader's label when the side it takes (supports against refutes) is at least ``sure``;
  otherwise (and always with ``sure`` None) the LLM and the verifier read only its side, as the two-part judge does.
  With the band's ``gate_floor``, the LLM's gate still reads such a paper, and it passes where the gate's reading
  is at least ``gate_floor`` rather than the gate's own threshold (two keys: the reader's and the gate's); below that
  threshold the LLM and the verifier read its side, and it counts only where their side is the reader's
  (``same_side``): a bearing the gate doubts needs two readers agreeing on the direction;
* otherwise the reader is unsure, and the LLM reads the paper as the two-part judge does (agent/nodes/judge_sources.py).

With JUDGE_DIRECTION=reader nobody else reads a paper: the reader decides by its own band (``reader_alone_band``,
fitted by the same command), and one it does not label is set aside as unsure. Each
source says in words which reader decided it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from agent.judge.aside import set_aside
from agent.judge.calibration import ReaderBand
from agent.judge.scoring import grade, percent
from agent.state import Deps, SilentSource, SourceAssessment, StanceVerifier
from tools.models.verifier import VerifierResult
from tools.text.i18n import written
from tools.text.premise import whole_abstract

Decision = Literal["aside", "counts", "bears", "unsure"]


@dataclass(frozen=True)
class Reading:
    """The reader's three probabilities for one paper."""

    p_supports: float
    p_refutes: float
    p_nei: float

    @classmethod
    def of(cls, r: VerifierResult) -> Reading:
        return cls(round(r.p_supports, 4), round(r.p_contradicts, 4), round(r.p_nei, 4))

    @property
    def bears(self) -> float:
        """P(the abstract reports a finding on the claim, either way)."""
        return round(1.0 - self.p_nei, 4)

    @property
    def p_claim(self) -> float:
        """P(it supports the claim rather than refutes it)."""
        both = self.p_supports + self.p_refutes
        return round(self.p_supports / both, 4) if both > 0 else 0.5

    @property
    def confidence(self) -> float:
        """P(the side it takes), supports against refutes."""
        return max(self.p_claim, 1.0 - self.p_claim)

    def as_list(self) -> list[float]:
        return [self.p_supports, self.p_refutes, self.p_nei]


def decide(reading: Reading, band: ReaderBand) -> Decision:
    if reading.bears < band.aside_below:
        return "aside"
    if reading.bears < band.decide_from:
        return "unsure"
    return "counts" if band.sure is not None and reading.confidence >= band.sure else "bears"


def read_abstracts(reader: StanceVerifier, deps: Deps, claim: str, doc_ids: list[str]) -> dict[str, Reading]:
    """The reader's reading of each paper's whole abstract against the claim, in one batch."""
    docs = deps.index.docs
    known = [d for d in doc_ids if d in docs]
    pairs = [(claim, whole_abstract(docs[d].title, docs[d].sentences)) for d in known]
    return {d: Reading.of(r) for d, r in zip(known, reader.predict(pairs, batch_size=8), strict=True)}


def same_side(reading: Reading, score: float) -> bool:
    """Whether a two-part judge's signed ``score`` takes the side the reader leans to (neither side never does)."""
    return score != 0 and (score > 0) == (reading.p_claim >= 0.5)


def reader_label(a: SourceAssessment, reading: Reading) -> SourceAssessment:
    """The assessment labelled by the reader alone."""
    p = reading.p_claim
    score = round(2 * p - 1, 4)
    side = written("it supports the claim") if p >= 0.5 else written("it refutes the claim")
    return a.model_copy(
        update={
            "label": grade(score),
            "score": score,
            "p_claim": p,
            "stance_confidence": round(reading.confidence, 4),
            "bearing": reading.bears,
            "judged_by": "reader",
            "explanation": written(
                "Decided by the abstract reader, which read the whole abstract: {side} ({sure} sure of the side; "
                "{bears} sure the paper reports a finding on the claim).", side=side,
                sure=percent(reading.confidence), bears=percent(reading.bears)),
        }
    )


def aside_reason(reading: Reading) -> str:
    """Why the reader sets a paper aside, in words."""
    return written("Not counted: the abstract reader read the whole abstract and finds no finding on the claim "
                   "({sure} sure).", sure=percent(reading.p_nei))


def unsure_reason(reading: Reading) -> str:
    """Why a paper the reader is unsure of does not count when nobody else reads it (JUDGE_DIRECTION=reader)."""
    lean = written("supporting the claim") if reading.p_claim >= 0.5 else written("refuting the claim")
    return written("Not counted, but worth reading yourself: the abstract reader is unsure of it (it leans to {lean}, "
                   "{side} sure of the side, {bears} sure it reports a finding on the claim).", lean=lean,
                   side=percent(reading.confidence), bears=percent(reading.bears))


def sides_differ_reason(reading: Reading, readers: str) -> str:
    """Why a paper the gate doubts and the reader passes does not count: the reader and the two-part judge (named in
    ``readers``) do not read the same side of it."""
    lean = written("supporting the claim") if reading.p_claim >= 0.5 else written("refuting the claim")
    return written("Not counted, but worth reading yourself: the LLM's gate doubts that it reports a finding on the "
                   "claim, and the abstract reader (leaning to {lean}) and {readers} do not read the same side of it.",
                   lean=lean, readers=readers)


UNREAD = written("Not counted: the abstract reader could not read it (its abstract is no longer in the index).")


def reader_note(reading: Reading, bears: bool, floor: float | None = None, gate: float = 0.0) -> str:
    """What a source the LLM reads after the reader says of the reader: that the reader found it reports a finding
    on the claim (``bears``: the LLM read only its side; with the band's ``floor``, the paper counted from ``floor``
    of the gate's reading instead of the gate's threshold ``gate``), or was unsure of it."""
    if bears and floor is not None:
        return " " + written("The abstract reader read the whole abstract and finds that it reports a finding on the "
                             "claim ({sure} sure), so the paper counts from {floor} likely to report a finding in the "
                             "gate's reading, instead of {gate}.", sure=percent(reading.bears), floor=percent(floor),
                             gate=percent(gate))
    if bears:
        return " " + written("The abstract reader read the whole abstract and finds that it reports a finding on the "
                             "claim ({sure} sure), so the LLM read only its side.", sure=percent(reading.bears))
    return " " + written("The abstract reader was unsure of it ({sure} sure it reports a finding on the claim).",
                         sure=percent(reading.bears))


class ReaderDecisions(NamedTuple):
    """The sources the reader decided (counted, or set aside), those it passes for the LLM to read the side of
    (``bears``), and those it leaves to the LLM's gate and side (``unsure``)."""

    judged: list[SourceAssessment]
    aside: list[SilentSource]
    bears: list[SourceAssessment]
    unsure: list[SourceAssessment]


def reader_decisions(
    assessments: list[SourceAssessment],
    readings: dict[str, list[float]],
    band: ReaderBand,
    titles: dict[str, str],
    alone: bool,
) -> ReaderDecisions:
    """Each source the reader read, decided by its band; with ``alone`` (JUDGE_DIRECTION=reader) the sources it does
    not label are set aside too, marked worth the user's own reading. A source whose abstract it could not read is
    left to the LLM, or, with ``alone``, listed as not read."""
    out = ReaderDecisions([], [], [], [])
    for a in assessments:
        raw = readings.get(a.doc_id)
        if raw is None and alone:
            out.aside.append(set_aside(a, titles.get(a.doc_id, a.doc_id), a.bearing or 0.0, UNREAD, unread=True))
            continue
        if raw is None:
            out.unsure.append(a)
            continue
        reading = Reading(*raw)
        fate = decide(reading, band)
        title = titles.get(a.doc_id, a.doc_id)
        if fate == "counts" and band.gate_floor is None:
            out.judged.append(reader_label(a, reading))
        elif fate == "aside":
            out.aside.append(set_aside(a, title, reading.bears, aside_reason(reading)))
        elif alone:
            out.aside.append(set_aside(a, title, reading.bears, unsure_reason(reading), close=True))
        elif fate in ("bears", "counts"):  # "counts" here waits for the gate's reading (the band's gate_floor)
            out.bears.append(a)
        else:
            out.unsure.append(a)
    return out
