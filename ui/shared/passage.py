"""A checked passage as every view shows it: one row per claim (verdict, confidence, papers), the passage with each
claim's span marked, and the citation audit in words. Pure functions of a PassageCheck; each view escapes text for
its own medium through the ``escape`` it passes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.passage.model import CitationAudit, PassageCheck, PassageClaim


@dataclass(frozen=True)
class Row:
    n: int
    claim: str
    label: str  # the verdict's label, "checking…" before any
    confidence: float | None
    papers: int  # papers the verdict counts (on either side)
    final: bool  # the full check's verdict (False: provisional, or none yet)
    same_as: int | None


def row_of(check: PassageCheck, claim: PassageClaim) -> Row:
    result = check.checked(claim)
    verdict = result.verdict if result is not None else claim.provisional
    if verdict is None:
        return Row(claim.n, claim.claim, "checking…", None, 0, False, claim.same_as)
    label = verdict.label if result is not None else f"{verdict.label} (provisional)"
    papers = verdict.supporting + verdict.contradicting
    return Row(claim.n, claim.claim, label, verdict.confidence, papers, result is not None, claim.same_as)


def rows(check: PassageCheck) -> list[Row]:
    return [row_of(check, c) for c in check.claims]


def marked_text(check: PassageCheck, escape: Callable[[str], str], mark: Callable[[Row, str], str]) -> str:
    """The passage with each claim's sentence replaced by ``mark(row, escaped sentence)``; the text between
    claims escaped as it is."""
    out: list[str] = []
    at = 0
    for claim in sorted(check.claims, key=lambda c: c.start):
        if claim.start < at:
            continue
        out.append(escape(check.text[at : claim.start]))
        out.append(mark(row_of(check, claim), escape(check.text[claim.start : claim.end])))
        at = claim.end
    out.append(escape(check.text[at:]))
    return "".join(out)


def audit_text(audit: CitationAudit) -> str:
    """One citation's audit in words (untrusted parts unescaped: the caller escapes the whole line)."""
    if audit.doc_id is None:
        return f"{audit.citation}: not in your library, so not audited (add it with `claimtrace add`)"
    how = f"matched by {audit.matched_by}"
    if audit.outcome == "does not address":
        return f"{audit.citation} “{audit.title}” ({how}): the paper, read alone, does not address this claim"
    said = f"; it says: “{audit.finding}”" if audit.finding else ""
    return f"{audit.citation} “{audit.title}” ({how}): the paper, read alone, {audit.outcome} this claim{said}"
