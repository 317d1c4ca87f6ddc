"""The user's own library: PDFs, BibTeX and RIS files and Zotero exports, read into the index (`claimtrace add`).

Each document becomes one `Abstract` with source "library" and the id "lib:<doi>", else "lib:<first 16 hex digits
of its sha256>": a PDF's full text (each sentence with its page and section, tools.documents.pdf_text) with the
metadata of its reference entry when a Zotero export names it, else of the PDF itself; or an entry's abstract. They go
into the index as fetched abstracts do (`CorpusIndex.add_abstracts`: Chroma, a BM25 of their own, `live_docs.jsonl`), so
they survive a restart and a rebuild of the index.

A document is new unless the library holds one with the same DOI, PMID or content sha256 (the PDF file's bytes; an
abstract's title and text). The built corpus and fetched abstracts do not make a document a duplicate: the
library's copy is the one a check reads when it searches the library (tools.index.library_search).

Nothing a file holds stops the others: a damaged, encrypted or scanned PDF, an entry without an abstract, an
unreadable file is one problem naming it, and the rest is added."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.corpus import Abstract, Origin, split_sentences
from tools.documents.pdf_text import PdfProblem, read_pdf
from tools.documents.references import Reference, ReferenceFileProblem, read_references
from tools.files import sha256_file
from tools.live.normalize import MAX_SENTENCES

LIBRARY = "library"
SUFFIXES = (".pdf", ".bib", ".ris")


class LibraryProblem(ValueError):
    """A document that cannot be added; the message says why."""


class LibraryStoreError(RuntimeError):
    """The index stopped taking documents; what was added before stays."""


@dataclass(frozen=True)
class Item:
    """One document to read: a PDF, a reference entry, or an entry with its attached PDFs."""

    what: str  # how messages name it
    pdf: Path | None = None
    ref: Reference | None = None
    file: Path | None = None  # the file it was found in (`claimtrace library refresh` reads it again)


@dataclass
class AddReport:
    added: list[str] = field(default_factory=list)  # doc ids
    full_texts: int = 0
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (what, the id it duplicates)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (what, why)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        kinds = f" ({self.full_texts} full text(s), {len(self.added) - self.full_texts} abstract(s))"
        line = f"{len(self.added)} document(s) added to your library{kinds if self.added else ''}"
        line += f"; {len(self.duplicates)} duplicate(s)"
        if self.skipped:
            line += f"; {len(self.skipped)} skipped: " + "; ".join(f"{what} ({why})" for what, why in self.skipped)
        return line


def _files(path: Path, problems: list[tuple[str, str]]) -> list[Path]:
    if path.is_dir():
        try:
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())
        except OSError as e:
            problems.append((str(path), f"the folder cannot be read ({e.strerror or type(e).__name__})"))
            return []
        return [p for p in found if not any(part.startswith(".") for part in p.relative_to(path).parts)]
    if not path.exists():
        problems.append((str(path), "not found"))
    elif path.suffix.lower() not in SUFFIXES:
        problems.append((str(path), f"not a file claimtrace reads (it reads {', '.join(SUFFIXES)})"))
    else:
        return [path]
    return []


def plan(paths: Sequence[Path]) -> tuple[list[Item], list[tuple[str, str]]]:
    """The documents to read in the given files and folders (folders recursively, hidden ones left out), and the
    problems found on the way. Full texts come first, so that a PDF and an entry of the same paper keep the full
    text; a PDF that a reference entry names is read once, with the entry's metadata."""
    problems: list[tuple[str, str]] = []
    files = list(dict.fromkeys(f.resolve() for p in paths for f in _files(p, problems)))
    with_pdf: list[Item] = []
    abstracts: list[Item] = []
    for path in (f for f in files if f.suffix.lower() != ".pdf"):
        try:
            refs, bad = read_references(path)
        except ReferenceFileProblem as e:
            problems.append((str(path), str(e)))
            continue
        except Exception as e:  # the parsers' own failures on a strange file cost that file only
            problems.append((str(path), f"it could not be read ({type(e).__name__}: {e})"))
            continue
        problems += [(str(path), why) for why in bad]
        for ref in refs:
            (with_pdf if ref.files else abstracts).append(Item(ref.where, ref=ref, file=path))
    attached = {f.resolve() for item in with_pdf if item.ref for f in item.ref.files}
    pdfs = [Item(str(f), pdf=f, file=f) for f in files if f.suffix.lower() == ".pdf" and f not in attached]
    return [*with_pdf, *pdfs, *abstracts], problems


def library_id(doi: str | None, digest: str) -> str:
    return f"lib:{doi}" if doi else f"lib:{digest[:16]}"


def _from_pdf(path: Path, ref: Reference | None, notes: list[str]) -> Abstract:
    try:
        pdf = read_pdf(path)
        digest = sha256_file(path)
    except OSError as e:
        raise PdfProblem(f"it cannot be read ({e.strerror or type(e).__name__})") from e
    notes += [f"{path}: {note}" for note in pdf.notes]
    doi = (ref.doi if ref else None) or pdf.doi
    text = pdf.text
    return Abstract(
        doc_id=library_id(doi, digest),
        title=(ref.title if ref else "") or pdf.title or path.stem,
        sentences=text.sentences,
        year=(ref.year if ref else None) or pdf.year,
        venue=ref.venue if ref else None,
        doi=doi,
        pmid=ref.pmid if ref else None,
        url=ref.url if ref else None,
        source=LIBRARY,
        pages=text.pages,
        sections=text.sections,
        authors=(ref.authors if ref else []) or pdf.authors,
        content_hash=digest,
        cite_key=(ref.key if ref else None) or None,
    )


def _from_entry(ref: Reference) -> Abstract:
    sentences = split_sentences(ref.abstract)[:MAX_SENTENCES] if ref.abstract else []
    if not sentences:
        raise LibraryProblem("it has no abstract and no readable PDF attached")
    digest = hashlib.sha256(f"{ref.title.lower()}\n{' '.join(ref.abstract.lower().split())}".encode()).hexdigest()
    return Abstract(
        doc_id=library_id(ref.doi, digest),
        title=ref.title or "(untitled)",
        sentences=sentences,
        year=ref.year,
        venue=ref.venue,
        doi=ref.doi,
        pmid=ref.pmid,
        url=ref.url,
        source=LIBRARY,
        authors=ref.authors,
        content_hash=digest,
        cite_key=ref.key or None,
    )


def read_item(item: Item, notes: list[str]) -> Abstract:
    """The document of one item; raises LibraryProblem or PdfProblem saying why there is none. An entry whose
    attached PDFs cannot be read falls back on its abstract, with a note."""
    if item.pdf is not None:
        return _from_pdf(item.pdf, None, notes)
    assert item.ref is not None
    why: list[str] = []
    for path in item.ref.files:
        if not path.is_file():
            why.append(f"attached file {path} not found")
            continue
        try:
            return _from_pdf(path, item.ref, notes)
        except PdfProblem as e:
            why.append(f"attached file {path.name}: {e}")
    if why and item.ref.abstract:
        notes.append(f"{item.what}: {'; '.join(why)}; its abstract is added instead")
    elif why:
        raise LibraryProblem("; ".join(why))
    return _from_entry(item.ref)


def with_origin(doc: Abstract, item: Item, digests: dict[Path, str]) -> Abstract:
    """The document with the file it was read from and that file's sha256 (`digests` keeps each file's)."""
    if item.file is None:
        return doc
    if item.file not in digests:
        digests[item.file] = doc.content_hash if item.pdf == item.file and doc.content_hash else sha256_file(item.file)
    origin = Origin(file=str(item.file), file_sha256=digests[item.file])
    return doc.model_copy(update={"origin": origin})


class Catalog:
    """The library's documents by DOI, PMID and content sha256: what makes a document a duplicate."""

    def __init__(self, docs: Iterable[Abstract]) -> None:
        self._keys: dict[str, str] = {}
        for doc in docs:
            if doc.source == LIBRARY:
                self.remember(doc)

    @staticmethod
    def _of(doc: Abstract) -> list[str]:
        keys = [f"doi:{doc.doi}" if doc.doi else "", f"pmid:{doc.pmid}" if doc.pmid else ""]
        return [k for k in [*keys, f"sha:{doc.content_hash}" if doc.content_hash else "", f"id:{doc.doc_id}"] if k]

    def known(self, doc: Abstract) -> str | None:
        return next((self._keys[k] for k in self._of(doc) if k in self._keys), None)

    def remember(self, doc: Abstract) -> None:
        for key in self._of(doc):
            self._keys.setdefault(key, doc.doc_id)


def add_to_library(
    index: Any,
    items: Sequence[Item],
    skipped: Sequence[tuple[str, str]] = (),
    on_done: Callable[[], None] | None = None,
    on_problem: Callable[[str], None] | None = None,
    batch: int = 16,
) -> AddReport:
    """Read `items` and add the new documents to `index` (a CorpusIndex) in batches; ``skipped`` are the problems
    found before (`plan`). ``on_done`` is called after each item, ``on_problem`` with each line the user should read.
    Raises LibraryStoreError when the index stops taking documents (those of earlier batches stay)."""
    report = AddReport()
    catalog = Catalog(index.docs.values())
    pending: list[Abstract] = []
    digests: dict[Path, str] = {}

    def say(line: str) -> None:
        if on_problem:
            on_problem(line)

    def skip(what: str, why: str) -> None:
        report.skipped.append((what, why))
        say(f"skipped {what}: {why}")

    def flush() -> None:
        try:
            index.add_abstracts(pending)
        except Exception as e:  # the store's own errors (disk, Chroma); the batches before stay added
            raise LibraryStoreError(
                f"the index stopped taking documents ({type(e).__name__}: {e}); {len(report.added)} were added "
                "before it"
            ) from e
        report.added += [d.doc_id for d in pending]
        report.full_texts += sum(1 for d in pending if d.pages)
        pending.clear()

    for what, why in skipped:
        skip(what, why)
    for item in items:
        notes: list[str] = []
        try:
            doc = with_origin(read_item(item, notes), item, digests)
        except (LibraryProblem, PdfProblem) as e:
            skip(item.what, str(e))
        except Exception as e:  # an unforeseen failure on one file costs that file only
            skip(item.what, f"it could not be read ({type(e).__name__}: {e})")
        else:
            known = catalog.known(doc)
            if known is not None:
                report.duplicates.append((item.what, known))
            else:
                catalog.remember(doc)
                pending.append(doc)
        for line in notes:
            report.notes.append(line)
            say(f"note: {line}")
        if len(pending) >= batch:
            flush()
        if on_done:
            on_done()
    if pending:
        flush()
    return report
