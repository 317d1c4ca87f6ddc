"""The verdict in words, written by code from the verdict's own figures, never by the LLM, so it cannot disagree
with the badge: the answer's first sentence (``verdict_statement``), and the evidence the LLM may write the rest
from (``bearing_evidence``: only the abstracts the verdict counts)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.scoring import NOT_ENOUGH, UNDECIDED, WEAKLY_REFUTED, WEAKLY_SUPPORTED, counted
from agent.state import Evidence, SourceAssessment, Verdict
from tools.design import DESIGN_PLURALS


def papers(n: int) -> str:
    return f"{n} paper" if n == 1 else f"{n} papers"


def listing(names: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def sides(v: Verdict) -> str:
    """"2 papers support the claim and 1 contradicts it; 3 more bear on neither side"."""
    support = f"{papers(v.supporting)} support{'s' if v.supporting == 1 else ''} the claim"
    against = f"{v.contradicting} contradict{'s' if v.contradicting == 1 else ''} it"
    bear = "bears" if v.irrelevant == 1 else "bear"
    neither = f"; {v.irrelevant} more {bear} on neither side" if v.irrelevant else ""
    return f"{support} and {against}{neither}"


def verdict_statement(v: Verdict, min_confidence: float, read: int) -> str:
    """The verdict and its basis in one or two plain sentences: the label, its confidence, the papers on each side
    and those read that bear on neither; for "Cannot decide", the leaning and the confidence against the threshold;
    for "Not enough evidence", what was read and why it does not settle the claim; and a warning when every paper
    counted has a weak design. ``read``: the abstracts read (labelled and silent)."""
    if v.label == NOT_ENOUGH:
        if read == 0:
            return "Not enough evidence: the search found no paper that addresses the claim."
        return (
            f"Not enough evidence: {papers(read)} {'was' if read == 1 else 'were'} read, and none of them states a "
            "finding for or against the claim clearly enough to count, so they do not settle it."
        )
    figures = sides(v)
    if v.label == UNDECIDED:
        text = (
            f"Cannot decide: the evidence leans towards “{(v.leaning or '').lower()}”, but its confidence "
            f"({v.confidence:.2f}) is below the {min_confidence:.2f} a verdict needs; {figures}."
        )
    else:
        text = f"{v.label} (confidence {v.confidence:.2f}): {figures}."
        if v.label in (WEAKLY_SUPPORTED, WEAKLY_REFUTED):
            text += (
                f" The papers' weighted grade is {v.score:+.2f}, short of the ±0.66 that “generally” needs, "
                "though none takes the other side."
            )
    if v.weak_designs:
        names = listing([DESIGN_PLURALS.get(d, d) for d in v.weak_designs])
        text += f" Every paper it counts is one of the {names}, so it rests on indirect evidence."
    return text


def bearing_evidence(evidence: Sequence[Evidence], assessments: Sequence[SourceAssessment]) -> list[Evidence]:
    """The evidence sentences of the abstracts the verdict counts: what the answer may report. Sentences of
    abstracts that bear on neither side are listed among the sources as read, never quoted as the answer."""
    docs = {a.doc_id for a in counted(assessments)}
    return [ev for ev in evidence if ev.doc_id in docs]
