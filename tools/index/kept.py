"""The documents the index keeps beyond the built corpus (the user's library and the abstracts fetched from live
sources): listed, chosen for removal, and the library's files read again (`claimtrace library`, docs/library.md).

Listing reads `live_docs.jsonl` only (no model, no Chroma); removing and refreshing go through an open
tools.index.local.CorpusIndex, whose `remove_docs` is the one crash-safe removal."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tools.corpus import Abstract
from tools.documents.library import LIBRARY, add_to_library, plan
from tools.files import sha256_file
from tools.index.live_docs import pending_removal, read_live_docs


class UnknownDocument(ValueError):
    """An id that names no kept document; the message says what it names instead."""


def kept_documents(index_dir: Path) -> list[Abstract]:
    """Every kept document, in the order it entered the index (one a pending removal takes out is left out)."""
    leaving = {e.doc_id for e in pending_removal(index_dir)}
    return [d for d in read_live_docs(index_dir).values() if d.doc_id not in leaving]


def came_from(doc: Abstract) -> str:
    """Where a kept document came from, in words: its file, or its live source and the search that found it."""
    origin = doc.origin
    if doc.source == LIBRARY:
        return origin.file if origin and origin.file else "a file (not recorded)"
    query = f" “{origin.query}”" if origin and origin.query else ""
    return f"{doc.source or 'unknown source'}{query}"


def entry(doc: Abstract, cited_by: Sequence[str] = ()) -> dict[str, Any]:
    """One document as `claimtrace library list --json` and the MCP `library` tool give it."""
    origin = doc.origin
    return {
        "doc_id": doc.doc_id,
        "title": doc.title,
        "source": doc.source,
        "file": origin.file if origin else None,
        "query": origin.query if origin else None,
        "added_at": origin.added_at if origin else None,
        "cited_by": list(cited_by),
    }


def parse_day(text: str) -> datetime:
    """A date (YYYY-MM-DD) or time (ISO 8601, UTC when it names no zone); ValueError when it is neither."""
    when = datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _added(doc: Abstract) -> datetime | None:
    try:
        return parse_day(doc.origin.added_at) if doc.origin and doc.origin.added_at else None
    except ValueError:
        return None


def choose(
    docs: Sequence[Abstract],
    ids: Sequence[str] = (),
    source: str | None = None,
    added_before: datetime | None = None,
    corpus_ids: Collection[str] = (),
) -> list[Abstract]:
    """The kept documents named by `ids` (each must be one), else those from `source` and/or added before
    `added_before` (a document whose adding time is not recorded is not chosen by time). Raises UnknownDocument."""
    by_id = {d.doc_id: d for d in docs}
    for doc_id in ids:
        if doc_id in by_id:
            continue
        if doc_id in corpus_ids:
            raise UnknownDocument(f"{doc_id} is part of the built corpus, which `library remove` does not change")
        raise UnknownDocument(f"no document {doc_id!r} in your library or among the fetched abstracts "
                              "(`claimtrace library list` lists them)")
    if ids:
        return [by_id[i] for i in dict.fromkeys(ids)]
    chosen = [d for d in docs if source is None or d.source == source]
    if added_before is not None:
        chosen = [d for d in chosen if (when := _added(d)) is not None and when < added_before]
    return chosen


@dataclass
class RefreshReport:
    unchanged: int = 0
    reread: list[str] = field(default_factory=list)  # files read again
    gone: list[str] = field(default_factory=list)  # files no longer there
    removed: list[str] = field(default_factory=list)  # doc ids
    added: list[str] = field(default_factory=list)  # doc ids
    kept: list[tuple[str, str]] = field(default_factory=list)  # (file, why): its documents stay as they were
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (entry, why)

    def summary(self) -> str:
        line = (f"{len(self.reread)} changed file(s) read again, {len(self.gone)} gone, {self.unchanged} unchanged: "
                f"{len(self.removed)} document(s) removed, {len(self.added)} added")
        if self.kept:
            line += f"; {len(self.kept)} file(s) could not be read, their documents kept"
        return line


def _by_file(docs: Sequence[Abstract]) -> dict[str, list[Abstract]]:
    out: dict[str, list[Abstract]] = {}
    for doc in docs:
        if doc.source == LIBRARY and doc.origin and doc.origin.file:
            out.setdefault(doc.origin.file, []).append(doc)
    return out


def refresh_library(index: Any, on_problem: Callable[[str], None] | None = None) -> RefreshReport:
    """Read again each library file whose sha256 changed, and drop the documents of files that are gone. A file
    that exists and cannot be read (or gives nothing readable now) keeps its documents, with one line saying why.
    A changed file's old documents leave in one removal, then what it holds now is added."""
    report = RefreshReport()

    def say(line: str) -> None:
        if on_problem:
            on_problem(line)

    leaving: list[str] = []
    again: list[Path] = []
    for file, docs in sorted(_by_file(list(index.docs.values())).items()):
        path = Path(file)
        if not path.exists():
            report.gone.append(file)
            leaving += [d.doc_id for d in docs]
            continue
        try:
            digest = sha256_file(path)
        except OSError as e:
            why = f"it cannot be read ({e.strerror or type(e).__name__}); its {len(docs)} document(s) are kept"
            report.kept.append((file, why))
            say(f"kept {file}: {why}")
            continue
        if all(d.origin and d.origin.file_sha256 == digest for d in docs):
            report.unchanged += 1
            continue
        items, problems = plan([path])
        if not items:
            why = "; ".join(w for _, w in problems) or "it holds nothing readable now"
            report.kept.append((file, f"{why}; its {len(docs)} document(s) are kept"))
            say(f"kept {file}: {why}; its {len(docs)} document(s) are kept")
            continue
        report.reread.append(file)
        again.append(path)
        leaving += [d.doc_id for d in docs]
    if leaving:
        report.removed = [r.doc_id for r in index.remove_docs(leaving)]
    if again:
        items, problems = plan(again)
        added = add_to_library(index, items, problems, on_problem=say)
        report.added, report.skipped = added.added, added.skipped
    return report
