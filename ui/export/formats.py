"""A check exported as a file: the full result as JSON, a Markdown report (ui.export.markdown), or its sources as BibTeX
or RIS references (ui.export.references). Pure functions of a CheckResult and, for a source that has left the index
since the check, the day it left (read from the removal log by the caller: tools.index.live_docs.removed_days);
`claimtrace export`, MCP's export_check and the chat's Export button all call `export_text`.

BibTeX: one @article per abstract (title, year, journal, doi, pmid, url, note), written with bibtexparser. Texts are
escaped for LaTeX (`bib_escape`; `bib_unescape` reads them back): a title's braces, %, &, #, _, $, ^, ~ and
backslash print as themselves, and non-ASCII letters stay UTF-8. RIS: one TY JOUR record per abstract, with rispy.
A reference's note is in English whatever the view speaks, as reference managers keep it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import bibtexparser
import rispy
from bibtexparser.model import Entry, Field

from agent.judge.consensus import consensus
from agent.result import CheckResult
from tools.index.live_docs import removal_mark
from tools.text.i18n import english
from ui.export.markdown import report_markdown
from ui.export.references import Reference, references

# format -> (MIME type, file suffix)
FORMATS: dict[str, tuple[str, str]] = {
    "md": ("text/markdown", "md"),
    "json": ("application/json", "json"),
    "bib": ("application/x-bibtex", "bib"),
    "ris": ("application/x-research-info-systems", "ris"),
}

_BIB_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
_BIB_UNESCAPES = {v: k for k, v in _BIB_ESCAPES.items()}
_BIB_ESCAPED = re.compile("|".join(re.escape(v) for v in _BIB_UNESCAPES))
_RAW_UNSAFE = str.maketrans({"{": "%7B", "}": "%7D", "\\": "%5C"})  # braces would end a BibTeX value


Removed = Mapping[str, str]  # doc id -> the day it was removed from the index (tools.index.live_docs.removed_days)


def cited_removed(result: CheckResult, removed: Removed | None) -> dict[str, str]:
    """The documents of this check (its sources and those read and not counted) that have left the index since,
    with the day each left."""
    if not removed:
        return {}
    ids = [s.doc_id for s in result.sources] + [s.doc_id for s in result.silent]
    return {doc_id: removed[doc_id] for doc_id in dict.fromkeys(ids) if doc_id in removed}


def export_json(result: CheckResult, removed: Removed | None = None) -> str:
    """The full result (`CheckResult.model_validate` reads it back) plus its consensus view ("consensus") and the
    documents it cites that have left the index since, with the day each left ("removed_from_library")."""
    data = {**result.model_dump(mode="json"), "consensus": consensus(result).model_dump(mode="json"),
            "removed_from_library": cited_removed(result, removed)}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def bib_escape(text: str) -> str:
    """A text as a BibTeX value that LaTeX prints as the text itself (balanced braces only)."""
    return "".join(_BIB_ESCAPES.get(ch, ch) for ch in text)


def bib_unescape(text: str) -> str:
    """The inverse of `bib_escape`."""
    return _BIB_ESCAPED.sub(lambda m: _BIB_UNESCAPES[m.group(0)], text)


def _note(ref: Reference, removed: Removed | None = None) -> str:
    cited = ", ".join(f"[{n}]" for n in ref.evidence)
    gone = f"; {english(removal_mark)(removed[ref.doc_id])}" if removed and ref.doc_id in removed else ""
    return f"claimtrace evidence {cited}" + ("; RETRACTED" if ref.retracted else "") + gone


def export_bib(result: CheckResult, removed: Removed | None = None) -> str:
    return write_bib([(ref, _note(ref, removed)) for ref in references(result.sources)])


def write_bib(refs: list[tuple[Reference, str]]) -> str:
    """BibTeX of the papers, each with its note."""
    library = bibtexparser.Library()
    for ref, note in refs:
        fields = [Field("title", bib_escape(ref.title))]
        if ref.year:
            fields.append(Field("year", str(ref.year)))
        if ref.venue:
            fields.append(Field("journal", bib_escape(ref.venue)))
        if ref.doi:
            fields.append(Field("doi", ref.doi.translate(_RAW_UNSAFE)))
        if ref.pmid:
            fields.append(Field("pmid", ref.pmid.translate(_RAW_UNSAFE)))
        if ref.url:
            fields.append(Field("url", ref.url.translate(_RAW_UNSAFE)))
        fields.append(Field("note", bib_escape(note)))
        library.add(Entry("article", ref.key, fields))
    return str(bibtexparser.write_string(library))


class _RisWriter(rispy.RisWriter):
    """RIS records without rispy's "1." line before each: not part of RIS, and some readers stop at it."""

    def set_header(self, count: int) -> str:
        return ""


def export_ris(result: CheckResult, removed: Removed | None = None) -> str:
    return write_ris([(ref, _note(ref, removed)) for ref in references(result.sources)])


def write_ris(refs: list[tuple[Reference, str]]) -> str:
    """RIS of the papers, each with its note."""
    records = []
    for ref, note in refs:
        record: dict[str, Any] = {"type_of_reference": "JOUR", "id": ref.key, "title": ref.title}
        if ref.year:
            record["year"] = str(ref.year)
        if ref.venue:
            record["journal_name"] = ref.venue
            record["secondary_title"] = ref.venue
        if ref.doi:
            record["doi"] = ref.doi
        if ref.pmid:
            record["accession_number"] = ref.pmid
        if ref.url:
            record["urls"] = [ref.url]
        record["notes"] = [note]
        records.append(record)
    return str(rispy.dumps(records, implementation=_RisWriter))


def export_text(result: CheckResult, fmt: str, removed: Removed | None = None, language: str | None = None) -> str:
    """The result in `fmt` (a key of FORMATS). `removed` (doc id -> day) marks each source that has left the index
    since the check "removed from the library on <day>"; its sentences stay as the check kept them. The Markdown
    report speaks ``language``, by default the claim's (ui.export.markdown)."""
    if fmt == "md":
        return report_markdown(result, cited_removed(result, removed), language)
    if fmt == "json":
        return export_json(result, removed)
    if fmt == "bib":
        return export_bib(result, removed)
    if fmt == "ris":
        return export_ris(result, removed)
    raise ValueError(f"unknown export format {fmt!r}; the formats are {', '.join(FORMATS)}")


def file_name(result: CheckResult, fmt: str) -> str:
    """claimtrace-<first words of the claim>-<date>.<suffix>, ASCII only."""
    words = re.findall(r"[a-z0-9]+", result.claim.encode("ascii", "ignore").decode().lower())[:6]
    day = result.run.checked_at[:10]
    stem = "-".join(["claimtrace", *words, *([day] if day else [])])
    return f"{stem}.{FORMATS[fmt][1]}"
