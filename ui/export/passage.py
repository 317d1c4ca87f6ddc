"""A checked passage exported as a file: the whole PassageCheck as JSON, a Markdown report (the passage with each
claim marked by its verdict, the table, the citation audit, the sentences not checked and why, then every claim's
full check) in the language the passage came in (or ``language``), or the papers behind all claims as one BibTeX or
RIS file, whose notes stay English as a single check's do. Pure functions of a PassageCheck."""

from __future__ import annotations

from collections.abc import Callable

from agent.passage.model import PassageCheck
from tools.text.i18n import english, said, speaking, t
from ui.export.formats import FORMATS, write_bib, write_ris
from ui.export.markdown import report_markdown
from ui.export.references import Reference, references
from ui.shared.passage import Row, audit_text, marked_text, rows
from ui.shared.untrusted import md


def _verdict(row: Row) -> str:
    return md(t("same check as claim {n}: {label}", n=row.same_as, label=row.label) if row.same_as else row.label)


def claims_table(check: PassageCheck, verdict: Callable[[Row], str] = _verdict) -> str:
    """The claims as a Markdown table (claim, verdict, confidence, papers); ``verdict`` writes a row's verdict cell."""
    head = t("| # | Claim | Verdict | Confidence | Papers |") + "\n|---:|---|---|---:|---:|"
    lines = []
    for row in rows(check):
        conf = "" if row.confidence is None else f"{row.confidence:.2f}"
        lines.append(f"| {row.n} | {md(row.claim)} | {verdict(row)} | {conf} | {row.papers} |")
    return "\n".join([head, *lines])


def _demoted(report: str) -> str:
    """A check's own report under the passage's headings (each heading two levels down)."""
    return "\n".join(f"##{line}" if line.startswith("#") else line for line in report.splitlines())


def passage_markdown(check: PassageCheck, language: str | None = None) -> str:
    """The Markdown report in ``language`` (ISO 639-1; default: the language the passage came in)."""
    with speaking(language or check.language) as spoken:
        return _passage_report(check, spoken)


def _passage_report(check: PassageCheck, language: str) -> str:
    marked = marked_text(check, md, lambda row, text: f"**[{row.n}: {md(row.label)}]** {text}")
    parts = [
        t("# claimtrace passage check"),
        t("Checked on {day} (UTC).", day=md(check.run.checked_at or t("an unrecorded date"))),
        t("## The passage, each claim marked by its verdict"),
        marked,
        t("## Claims"),
        claims_table(check),
    ]
    audits = [(c.n, a) for c in check.claims for a in c.audits]
    if audits:
        parts += [t("## Citation audit"),
                  "\n".join(t("- Claim {n}: {audit}", n=n, audit=md(audit_text(a))) for n, a in audits)]
    if check.skipped:
        parts += [t("## Sentences not checked"),
                  "\n".join(f"- {md(s.sentence)} ({md(said(s.reason))})" for s in check.skipped)]
    if check.notes:
        parts += [t("## Notes"), "\n".join(f"- {md(said(n))}" for n in check.notes)]
    for claim in check.claims:
        if claim.result is not None:
            own = report_markdown(claim.result, language=language)
            parts += [t("## Claim {n}: full check", n=claim.n), _demoted(own)]
    return "\n\n".join(parts) + "\n"


def passage_references(check: PassageCheck) -> list[tuple[Reference, str]]:
    """Every paper of every claim's check, once, each noted with the claims and numbers it was cited as."""
    seen: dict[str, tuple[Reference, list[str]]] = {}
    for claim in check.claims:
        if claim.result is None:
            continue
        for ref in references(claim.result.sources):
            cited = f"claim {claim.n} [{', '.join(map(str, ref.evidence))}]"
            seen.setdefault(ref.doc_id, (ref, []))[1].append(cited)
    keys: set[str] = set()
    out = []
    for ref, where in seen.values():
        key, i = ref.key, 0
        while key in keys:  # a key taken by another claim's paper
            i += 1
            key = f"{ref.key}{chr(ord('a') + i)}"
        keys.add(key)
        out.append((Reference(**{**ref.__dict__, "key": key}), "claimtrace passage check: " + "; ".join(where)))
    return out


@english  # BibTeX and RIS notes are English whatever the view that asks for them speaks
def export_passage(check: PassageCheck, fmt: str, language: str | None = None) -> str:
    """The passage check in ``fmt`` (a key of FORMATS); its Markdown report in ``language`` (default: the passage's)."""
    if fmt == "md":
        return passage_markdown(check, language)
    if fmt == "json":
        return check.model_dump_json(indent=2)
    if fmt == "bib":
        return write_bib(passage_references(check))
    if fmt == "ris":
        return write_ris(passage_references(check))
    raise ValueError(f"unknown export format {fmt!r}; the formats are {', '.join(FORMATS)}")
