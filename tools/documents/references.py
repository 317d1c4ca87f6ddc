"""Reference files: BibTeX (bibtexparser) and RIS (rispy), one `Reference` per entry, as a reference manager
exports them. A Zotero export names each entry's attached files (BibTeX `file`, RIS `L1`) relative to the folder it
was exported to; `Reference.files` holds the attached PDFs resolved against that folder.

An entry that cannot be parsed is reported and skipped; the others are read. The text is data, never
instructions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from tools.live.normalize import clean_text, normalize_doi, normalize_pmid

_TY = re.compile(r"^TY  - ", re.MULTILINE)


class ReferenceFileProblem(ValueError):
    """A reference file that cannot be read at all; the message says why."""


@dataclass
class Reference:
    where: str  # how messages name it: "refs.bib: smith2019"
    key: str = ""  # the entry's citation key (BibTeX key, RIS ID), which a manuscript cites it by
    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    url: str | None = None
    abstract: str = ""
    files: list[Path] = field(default_factory=list)  # attached PDFs


def _year(raw: Any) -> int | None:
    match = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", str(raw or ""))
    return int(match.group(1)) if match else None


def _text(raw: Any) -> str:
    if isinstance(raw, list):
        raw = " ".join(map(str, raw))
    return clean_text(str(raw or "").replace("{", "").replace("}", ""))


def pdf_paths(raw: str, base: Path) -> list[Path]:
    """The PDFs a `file` field or an L1 tag names: Zotero's "Full Text PDF:files/12/a.pdf:application/pdf", a
    bare path, a file:// URL, several separated by ";". A relative path is read against ``base``."""
    out: list[Path] = []
    for part in re.split(r"(?<!\\);", raw):
        # fields split at a colon that is neither escaped (BibTeX's C\:\\Users) nor a drive's (C:\Users)
        for piece in re.split(r"(?<!\\):(?!\\)", part) if not part.strip().startswith("file:") else [part]:
            text = piece.strip().replace("\\:", ":").replace("\\\\", "\\")
            if text.lower().startswith("file:"):
                text = unquote(urlsplit(text).path)
            if text.lower().endswith(".pdf"):
                path = Path(text)
                out.append(path if path.is_absolute() else base / path)
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise ReferenceFileProblem("it is not UTF-8 text") from e
    except OSError as e:
        raise ReferenceFileProblem(f"it cannot be read ({e.strerror or type(e).__name__})") from e


def read_bibtex(path: Path) -> tuple[list[Reference], list[str]]:
    """The entries of a BibTeX file, and a problem for each block that could not be parsed."""
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors

    library = bibtexparser.parse_string(_read(path))
    # the attached files' paths before LaTeX decoding, which would read "C\:\\Users" as LaTeX
    files = [str(entry.fields_dict["file"].value) if "file" in entry.fields_dict else "" for entry in library.entries]
    library = SeparateCoAuthors().transform(LatexDecodingMiddleware().transform(library))
    refs = []
    for entry, raw_files in zip(library.entries, files, strict=True):
        fields = {k.lower(): f.value for k, f in entry.fields_dict.items()}
        authors = fields.get("author") or []
        refs.append(
            Reference(
                where=f"{path.name}: {entry.key}",
                key=entry.key,
                title=_text(fields.get("title")),
                authors=[_text(a) for a in (authors if isinstance(authors, list) else [authors])],
                year=_year(fields.get("year") or fields.get("date")),
                venue=_text(fields.get("journal") or fields.get("booktitle") or fields.get("journaltitle")) or None,
                doi=normalize_doi(_text(fields.get("doi"))),
                pmid=normalize_pmid(_text(fields.get("pmid"))),
                url=_text(fields.get("url")) or None,
                abstract=_text(fields.get("abstract")),
                files=pdf_paths(raw_files, path.parent),
            )
        )
    problems = [
        f"the entry at line {(block.start_line or 0) + 1} could not be parsed" for block in library.failed_blocks
    ]
    if not refs and not problems:
        raise ReferenceFileProblem("it holds no BibTeX entries")
    return refs, problems


def _first(record: dict[str, Any], *keys: str) -> Any:
    return next((record[k] for k in keys if record.get(k)), None)


def read_ris(path: Path) -> tuple[list[Reference], list[str]]:
    """The entries of a RIS file, and a problem when some entries could not be read (an entry without its ER)."""
    import rispy

    text = _read(path)
    try:
        records = rispy.loads(text, list_tags=[*rispy.LIST_TYPE_TAGS, "L1"])
    except (OSError, ValueError) as e:
        raise ReferenceFileProblem(f"it is not a readable RIS file ({e})") from e
    except (KeyError, IndexError, TypeError) as e:  # rispy's own errors on some malformed files (a stray line)
        raise ReferenceFileProblem(f"it is not a readable RIS file ({type(e).__name__} in the RIS reader)") from e
    refs = []
    for n, rec in enumerate(records, start=1):
        urls = rec.get("urls") or []
        title = _text(_first(rec, "title", "primary_title", "translated_title"))
        refs.append(
            Reference(
                where=f"{path.name}: {rec.get('id') or rec.get('label') or title[:60] or f'entry {n}'}",
                key=_text(rec.get("id") or rec.get("label")),
                title=title,
                authors=[_text(a) for a in (_first(rec, "authors", "first_authors") or [])],
                year=_year(_first(rec, "year", "publication_year", "date")),
                venue=_text(_first(rec, "secondary_title", "journal_name", "alternate_title3", "alternate_title1"))
                or None,
                doi=normalize_doi(_text(rec.get("doi"))),
                url=str(urls[0]) if urls else None,
                abstract=_text(_first(rec, "abstract", "notes_abstract")),
                files=[p for raw in rec.get("file_attachments1") or [] for p in pdf_paths(str(raw), path.parent)],
            )
        )
    lost = len(_TY.findall(text)) - len(records)
    problems = [f"{lost} entr{'y' if lost == 1 else 'ies'} could not be read"] if lost > 0 else []
    if not records and not problems:
        raise ReferenceFileProblem("it holds no RIS entries (TY ... ER)")
    return refs, problems


def read_references(path: Path) -> tuple[list[Reference], list[str]]:
    """The entries of a .bib or .ris file; raises ReferenceFileProblem when the file cannot be read at all."""
    return read_bibtex(path) if path.suffix.lower() == ".bib" else read_ris(path)
