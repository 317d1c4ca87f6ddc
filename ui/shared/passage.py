"""A checked passage as every view shows it: one row per claim (verdict, confidence, papers), the passage with each
claim's span marked, and the citation audit in words. Pure functions of a PassageCheck; each view escapes text for
its own medium through the ``escape`` it passes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.passage.model import CitationAudit, PassageCheck, PassageClaim
from tools.text.i18n import t


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
        return Row(claim.n, claim.claim, t("checking…"), None, 0, False, claim.same_as)
    label = t(verdict.label) if result is not None else t("{label} (provisional)", label=t(verdict.label))
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
        return t("{citation}: not in your library, so not audited (add it with `claimtrace add`)",
                 citation=audit.citation)
    how = _matched(audit.matched_by)
    if audit.outcome == "does not address":
        return t("{citation} “{title}” ({how}): the paper, read alone, does not address this claim",
                 citation=audit.citation, title=audit.title, how=how)
    said = t("; it says: “{finding}”", finding=audit.finding) if audit.finding else ""
    if audit.outcome == "supports":
        return t("{citation} “{title}” ({how}): the paper, read alone, supports this claim{said}",
                 citation=audit.citation, title=audit.title, how=how, said=said)
    return t("{citation} “{title}” ({how}): the paper, read alone, contradicts this claim{said}",
             citation=audit.citation, title=audit.title, how=how, said=said)


def _matched(by: str) -> str:
    """How a citation was matched to a library paper, in words."""
    words = {"doi": t("matched by doi"), "key": t("matched by key"), "title": t("matched by title"),
             "author and year": t("matched by author and year")}
    return words.get(by) or t("matched by {how}", how=by)
