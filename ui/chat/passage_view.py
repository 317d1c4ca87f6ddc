"""Markdown of a passage in the chat: the claims found (before checking, to drop or edit), the table of verdicts
(filled in as they come), and the report (the passage with each claim marked, the citation audit, the sentences not
checked), in the language the chat speaks (tools.text.i18n). Every text from the passage, the LLM or a source goes
through ``md``."""

from __future__ import annotations

from typing import Any

from agent.passage.model import PassageCheck, PassageClaim
from agent.result import CheckResult
from tools.text.i18n import said, t, t_n
from ui.export.passage import claims_table
from ui.shared.passage import Row, audit_text, marked_text
from ui.shared.untrusted import md


def _claim_line(row: PassageClaim) -> str:
    line = f"{row.n}. {md(row.claim)}"
    if row.rewritten_by == "user":
        line += " " + t("_(your wording)_")
    elif row.asked:  # the passage came in another language: the claim is the LLM's English of the user's sentence
        line += "  \n   " + t("_from your words, translated by the LLM:_ “{asked}”", asked=md(row.asked))
    elif row.claim != row.sentence:
        line += "  \n   " + t("_from:_ “{sentence}”", sentence=md(row.sentence))
    if row.unresolved:
        line += "  \n   " + t("⚠️ “{word}” still refers back into the text: edit the claim to name it",
                                  word=md(row.unresolved))
    if row.same_as is not None:
        line += "  \n   " + t("(the same as claim {n}: checked once)", n=row.same_as)
    return line


def skipped_markdown(check: PassageCheck) -> str:
    if not check.skipped:
        return ""
    lines = [f"- “{md(s.sentence)}”: {md(said(s.reason))}" for s in check.skipped]
    head = t_n(len(lines), "**Not checked** (1 sentence):", "**Not checked** ({n} sentences):")
    return head + "\n" + "\n".join(lines)


def notes_markdown(check: PassageCheck) -> str:
    return "\n".join(f"> ℹ️ {md(said(note))}" for note in check.notes)


def claims_markdown(check: PassageCheck) -> str:
    """The claims found, before checking."""
    if not check.claims:
        head = t("**This text states no checkable finding**, so nothing was checked. The reason for each sentence:")
        return "\n\n".join(p for p in [head, skipped_markdown(check), notes_markdown(check)] if p)
    head = t("**This text states {n} checkable claims.** Each is checked on its own, against the literature. Drop or "
             "edit any first, then press *Check*.", n=len(check.claims))
    listing = "\n".join(_claim_line(row) for row in check.claims)
    return "\n\n".join(p for p in [head, listing, skipped_markdown(check), notes_markdown(check)] if p)


def _cell(row: Row) -> str:
    label = t("same as claim {n}: {label}", n=row.same_as, label=row.label) if row.same_as else row.label
    return md(label) if row.final else f"_{md(label)}_"


def _lines(text: str) -> str:
    """``md`` of each line (``md`` alone shows line breaks as spaces, and the passage's paragraphs would be lost)."""
    return "\n".join(md(line) for line in text.split("\n"))


def table_markdown(check: PassageCheck, done: bool) -> str:
    """The claims' table; until ``done``, a verdict in italics is the verifier's provisional one."""
    head = t("**The passage's claims**") if done else t("**The passage's claims** (checking: provisional verdicts in "
                                                        "italics)")
    tail = t("Open a claim's full check, with its answer, sources and follow-ups, with its button below.")
    tail = tail if done else ""
    return "\n\n".join(p for p in [head, claims_table(check, _cell), tail] if p)


def report_markdown(check: PassageCheck) -> str:
    """The passage with each claim marked by its verdict, the citation audit and the sentences not checked."""
    marked = marked_text(check, _lines, lambda row, text: f"**⟦{row.n}: {md(row.label)}⟧** {text}")
    quoted = "\n>\n".join(f"> {line}" for line in marked.splitlines() if line.strip())
    parts = [t("**The passage, each claim marked by its verdict:**"), quoted]
    audits = [t("- claim {n}: {audit}", n=c.n, audit=md(audit_text(a))) for c in check.claims for a in c.audits]
    if audits:
        parts.append(t("**Citation audit** (each cited paper in your library, read alone):") + "\n" + "\n".join(audits))
    parts += [skipped_markdown(check), notes_markdown(check)]
    return "\n\n".join(p for p in parts if p)


def stored_passage(stored: dict[str, Any], results: list[dict[str, Any]]) -> PassageCheck:
    """A passage as the thread keeps it (``{"check": ..., "rows": {n: index}}``, without the rows' checks), whole
    again: each row's own check from the thread's results."""
    check = PassageCheck.model_validate(stored["check"])
    for row in check.claims:
        at = stored["rows"].get(str(row.n))
        if row.same_as is None and isinstance(at, int) and 0 <= at < len(results):
            row.result = CheckResult.model_validate(results[at])
    return check
