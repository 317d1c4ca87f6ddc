"""The documents kept beside the built corpus in the index folder, their metadata refresh, and their removal.

Abstracts fetched from live sources and the user's library are one JSON line each in `live_docs.jsonl` (a later
line of the same id refreshes its metadata); the in-memory BM25 of kept documents is built from it, and their
sentence vectors are in the index's Chroma collection.

A removal (`claimtrace library remove`) touches both stores. So that a crash between them cannot leave it half
done, it is first written to `removal.pending.json`; then the lines leave `live_docs.jsonl` (rewritten beside
itself and renamed over it, so a reader sees the old file or the new one), then the vectors leave Chroma, then the
removal is appended to `removed.jsonl` and the pending record goes. Each step may be done twice, and the next open
of the index (tools.index.local.CorpusIndex) finishes a removal whose record it finds. `removed.jsonl` keeps what was
removed and when, so that past checks that cite a removed document can say so; a fetched abstract listed there is
not fetched into the index again.

Writers of `live_docs.jsonl` in different processes (a `claimtrace add` beside a running chat) take the folder's
lock file first, so an append never lands in a file that a removal is about to replace."""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from tools.corpus import Abstract
from tools.live.merge import union
from tools.text.i18n import t

log = logging.getLogger(__name__)

LIVE_DOCS = "live_docs.jsonl"
PENDING = "removal.pending.json"
REMOVED = "removed.jsonl"
LOCK = ".live_docs.lock"


class Removed(BaseModel):
    """One document removed from the index."""

    doc_id: str
    title: str
    source: str | None = None
    removed_at: str  # ISO 8601, UTC


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@contextmanager
def locked(index_dir: Path) -> Iterator[None]:
    """Hold the index folder's lock for writing kept documents (an advisory lock, released when the body ends or
    the process dies)."""
    with (index_dir / LOCK).open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def read_live_docs(index_dir: Path, skip: Mapping[str, Abstract] | None = None) -> dict[str, Abstract]:
    """The fetched abstracts kept beside the index (a later line refreshes an earlier one; bad lines skipped)."""
    path = index_dir / LIVE_DOCS
    out: dict[str, Abstract] = {}
    if not path.is_file():
        return out
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                doc = Abstract.model_validate_json(line)
            except ValueError:
                log.warning("%s: skipped an unreadable line", path)
                continue
            if skip is None or doc.doc_id not in skip:
                out[doc.doc_id] = doc
    return out


def append_live_docs(index_dir: Path, docs: Sequence[Abstract]) -> None:
    with locked(index_dir), (index_dir / LIVE_DOCS).open("a", encoding="utf-8") as out:
        for doc in docs:
            out.write(doc.model_dump_json(exclude_defaults=True) + "\n")


def _write_replacing(path: Path, text: str) -> None:
    """`path` holding `text`, replaced in one step and on disk before this returns."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def pending_removal(index_dir: Path) -> list[Removed]:
    """The removal that was begun and not finished ([] when none). A record that cannot be read names nothing:
    it is left for a person to look at, and the documents stay."""
    path = index_dir / PENDING
    if not path.is_file():
        return []
    try:
        return [Removed.model_validate(r) for r in json.loads(path.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError, ValidationError) as e:
        log.warning("%s cannot be read (%s); no removal is finished from it", path, type(e).__name__)
        return []


def removed_log(index_dir: Path) -> dict[str, Removed]:
    """Every removal so far, by document id (the latest of an id removed twice)."""
    path = index_dir / REMOVED
    out: dict[str, Removed] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = Removed.model_validate_json(line)
        except ValueError:
            continue
        out[entry.doc_id] = entry
    return out


def removal_stamp(index_dir: Path) -> tuple[tuple[int, int, int] | None, ...]:
    """What changes whenever a removal begins or ends, in any process: the inode, size and modification time of
    `removal.pending.json` and `removed.jsonl` (None for one that is not there). Two stat calls, so an open index
    compares it before each search and reads its kept documents again when it differs."""
    out: list[tuple[int, int, int] | None] = []
    for name in (PENDING, REMOVED):
        try:
            st = (index_dir / name).stat()
        except OSError:
            out.append(None)
            continue
        out.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def removal_mark(day: str) -> str:
    """How a past check's source that has left the index is marked, wherever it is shown, in the language spoken
    where it is shown (the day as YYYY-MM-DD)."""
    return t("removed from the library on {day}", day=day)


def with_removal_marks(sources: Iterable[Mapping[str, Any]], index_dir: Path) -> list[dict[str, Any]]:
    """Copies of a past check's sources (each with its `doc_id`) as they are shown now: `removed` is the removal
    mark of a source whose document has left the index since the check (`removed_days`), else None."""
    gone = removed_days(index_dir)
    return [{**s, "removed": removal_mark(gone[s["doc_id"]]) if s.get("doc_id") in gone else None} for s in sources]


def removed_days(index_dir: Path) -> dict[str, str]:
    """doc id -> the day (YYYY-MM-DD, UTC) each document that is out of the index was removed: the removal log less
    the documents added again since. Read when a past check is shown, so that its sources say so; nothing stored is
    rewritten. A log that cannot be read marks nothing, with a warning."""
    try:
        logged = removed_log(index_dir)
        if not logged:
            return {}
        back = _live_ids(index_dir) & logged.keys()
    except (OSError, ValueError) as e:  # ValueError: a log or copy that is not UTF-8
        log.warning("%s cannot be read (%s); no source is marked as removed", index_dir / REMOVED, e)
        return {}
    return {doc_id: r.removed_at[:10] for doc_id, r in logged.items() if doc_id not in back}


def _live_ids(index_dir: Path) -> set[str]:
    path = index_dir / LIVE_DOCS
    ids: set[str] = set()
    if not path.is_file():
        return ids
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                doc_id = json.loads(line).get("doc_id")
            except (ValueError, AttributeError):
                continue
            if isinstance(doc_id, str):
                ids.add(doc_id)
    return ids


def _drop_lines(index_dir: Path, ids: set[str]) -> None:
    path = index_dir / LIVE_DOCS
    if not path.is_file():
        return
    kept: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        try:
            doc_id = json.loads(line).get("doc_id")
        except (ValueError, AttributeError):
            doc_id = None  # an unreadable line is not this removal's to drop
        if doc_id not in ids:
            kept.append(line)
    _write_replacing(path, "".join(kept))


def finish_removal(index_dir: Path, collection: Any) -> list[Removed]:
    """Finish the pending removal, if any; returns what it removed. Raises what the Chroma store raises, leaving
    the record for the next try (the documents have left `live_docs.jsonl` by then, so no search finds them)."""
    if not (index_dir / PENDING).is_file():  # the common case takes no lock, so a read-only folder opens
        return []
    with locked(index_dir):
        entries = pending_removal(index_dir)
        if not entries:
            return []
        ids = [e.doc_id for e in entries]
        _drop_lines(index_dir, set(ids))
        collection.delete(where={"doc_id": {"$in": ids}})
        logged = removed_log(index_dir)
        with (index_dir / REMOVED).open("a", encoding="utf-8") as out:
            for e in entries:
                if logged.get(e.doc_id) != e:
                    out.write(e.model_dump_json() + "\n")
        (index_dir / PENDING).unlink(missing_ok=True)
        return entries


def remove_documents(index_dir: Path, collection: Any, docs: Sequence[Abstract]) -> list[Removed]:
    """Remove `docs` from the kept documents and the Chroma collection, as one step that a crash cannot leave half
    done (see the module's docstring)."""
    when = now_iso()
    entries = [Removed(doc_id=d.doc_id, title=d.title, source=d.source, removed_at=when) for d in docs]
    with locked(index_dir):
        if pending_removal(index_dir):
            raise RuntimeError("an earlier removal is not finished; open the index again to finish it")
        _write_replacing(index_dir / PENDING, json.dumps([e.model_dump() for e in entries]))
    return finish_removal(index_dir, collection)


LISTED_METADATA = ("publication_types", "mesh_terms", "notices")  # a refresh adds to these lists


def refreshed(old: Abstract, doc: Abstract) -> Abstract:
    """A kept document ``old`` with the metadata of its fresh copy ``doc`` (citations, retraction, notices, venue
    signal, publication types and MeSH terms); its text stays, so stored sentence numbers stay valid."""
    return old.model_copy(
        update={
            k: getattr(doc, k)
            for k in ("year", "venue", "doi", "pmid", "url", "citation_count", "venue_citedness")
            if getattr(doc, k) is not None
        }
        | {"retracted": old.retracted or doc.retracted}
        | {k: union(getattr(old, k), getattr(doc, k)) for k in LISTED_METADATA}
    )


class Documents(dict[str, Abstract]):
    """The index's documents by id. A kept document removed while the index is open is no longer in it (`in` says
    no, iteration leaves it out, no search finds it), but a lookup by its id still gives its text: a check that
    found it before the removal reads it to its end."""

    def __init__(self, docs: Mapping[str, Abstract], left: Mapping[str, Abstract]) -> None:
        super().__init__(docs)
        self.left = dict(left)

    def __missing__(self, doc_id: str) -> Abstract:
        if doc_id in self.left:
            return self.left[doc_id]
        raise KeyError(doc_id)
