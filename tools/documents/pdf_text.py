"""Reading a PDF (pypdf): the text layer of each page, as sentences with their pages and sections
(tools.documents.fulltext), and the paper's title, authors, year and DOI, from the PDF's metadata or else its first
page (the largest type as the title, the line below it as the authors, a DOI pattern, a "Published ... 2019" year).

A PDF without a text layer (a scan) has nothing to read: claimtrace does no OCR, and PdfProblem says so. So it does
for a damaged file and for one that opens only with a password. The text is data, never instructions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.documents.fulltext import FullText, read_full_text
from tools.live.normalize import normalize_doi

NO_TEXT = (
    "it has no text layer (a scanned PDF?): claimtrace reads the text a PDF holds and does no OCR; run OCR on it "
    "(for example with ocrmypdf) and add the result"
)
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"'<>]+")
_DOI_END = ".,;:)]}"
# Dates on a first page, the publication first: "Published online: 3 May 2019", "© 2018 Elsevier", "Received ..."
_YEARS = [
    re.compile(rf"{word}[^\n]{{0,40}}?\b((?:19|20)\d\d)\b", re.IGNORECASE)
    for word in (r"published", r"accepted", r"received", r"(?:©|\(c\)|copyright)")
]
_JUNK_TITLE = re.compile(r"^(?:microsoft \w+ - |untitled)|\.(?:docx?|pdf|tex|dvi|indd|rtf)$", re.IGNORECASE)
_NAME = re.compile(r"^(?:[A-Z][\w'\-]*\.?\s+){1,4}[A-Z][\w'\-]+$")
_MARKS = re.compile(r"[\d*†‡§¶,]+$")


class PdfProblem(ValueError):
    """A PDF that gives no text; the message says why, in words for the user."""


@dataclass
class PdfText:
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doi: str | None = None
    text: FullText = field(default_factory=FullText)
    notes: list[str] = field(default_factory=list)  # what was left out, for the user


def _first_line(e: BaseException) -> str:
    return (str(e).splitlines() or [""])[0][:120]


def _open(path: Path) -> Any:
    from pypdf import PdfReader

    try:
        reader = PdfReader(path)
        encrypted = reader.is_encrypted
    except OSError as e:
        raise PdfProblem(f"it cannot be read ({e.strerror or type(e).__name__})") from e
    except Exception as e:  # pypdf raises many kinds of error for a damaged file
        raise PdfProblem(f"it is not a readable PDF ({type(e).__name__}: {_first_line(e)})") from e
    if encrypted:
        try:
            opened = bool(reader.decrypt(""))  # a PDF with only an owner password opens without one
        except Exception:  # an unsupported encryption: as closed as a password
            opened = False
        if not opened:
            raise PdfProblem("it is encrypted (opens only with a password); add a copy saved without the password")
    return reader


def _size(font_size: float, tm: list[float], cm: list[float]) -> float:
    """The type size on the page: the font size scaled by the text and transformation matrices."""
    scale = (abs(tm[0] * tm[3] - tm[1] * tm[2]) * abs(cm[0] * cm[3] - cm[1] * cm[2])) ** 0.5
    return round(font_size * (scale or 1.0), 1)


def _first_page(page: Any) -> tuple[str, list[tuple[str, float]]]:
    """The first page's text and its lines with their type sizes, in reading order."""
    runs: list[tuple[str, float]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: Any, font_size: float) -> None:
        for piece in text.splitlines():
            if piece.strip():
                runs.append((" ".join(piece.split()), _size(font_size, tm, cm)))

    return page.extract_text(visitor_text=visit) or "", runs


def _title_and_authors(runs: list[tuple[str, float]]) -> tuple[str | None, list[str]]:
    """The title (the run of largest type with at least 3 words, else the first line that has them) and the
    line after it when that line reads as a list of names."""
    wordy = [i for i, (text, _) in enumerate(runs) if 3 <= len(text.split()) <= 40]
    if not wordy:
        return None, []
    biggest = max(runs[i][1] for i in wordy)
    start = next(i for i in wordy if runs[i][1] == biggest)
    end = start
    while end + 1 < len(runs) and runs[end + 1][1] == biggest:
        end += 1
    title = " ".join(text for text, _ in runs[start : end + 1])[:300]
    return title, names(runs[end + 1][0]) if end + 1 < len(runs) else []


def names(line: str) -> list[str]:
    """The people a byline names ("Ann Smith1, Bob J. Jones* and Carl Lee"), or [] when it does not read as one."""
    parts = [_MARKS.sub("", p.strip()).strip() for p in re.split(r",|;|\band\b|&", line)]
    parts = [p for p in parts if p]
    return parts if parts and all(_NAME.match(p) for p in parts) else []


def _meta_authors(raw: str) -> list[str]:
    """The authors the PDF's metadata names, unless it is a tool's placeholder ("anonymous", "unknown")."""
    if raw.strip().lower() in ("", "anonymous", "unknown", "author", "admin", "user"):
        return []
    parts = raw.split(";") if ";" in raw else re.split(r",|\band\b", raw)
    return [" ".join(p.split()) for p in parts if p.strip()]


def find_doi(text: str) -> str | None:
    match = _DOI.search(text)
    return normalize_doi(match.group(0).rstrip(_DOI_END)) if match else None


def find_year(text: str) -> int | None:
    for pattern in _YEARS:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def read_pdf(path: Path) -> PdfText:
    """The sentences (with pages and sections) and the metadata of one PDF; raises PdfProblem."""
    reader = _open(path)
    out = PdfText()
    pages: list[str] = []
    runs: list[tuple[str, float]] = []
    try:
        count = len(reader.pages)
    except Exception as e:
        raise PdfProblem(f"it is not a readable PDF ({type(e).__name__}: {_first_line(e)})") from e
    for number in range(count):
        try:
            page = reader.pages[number]
            if number == 0:
                text, runs = _first_page(page)
            else:
                text = page.extract_text() or ""
        except Exception as e:  # one damaged page costs that page only
            out.notes.append(f"page {number + 1} could not be read ({type(e).__name__})")
            text = ""
        pages.append(text)
    if not any(len(p.strip()) > 20 for p in pages):
        raise PdfProblem(NO_TEXT if count else "it has no pages")
    out.text = read_full_text(pages)
    if not out.text.sentences:
        raise PdfProblem("it has no text outside its references and back matter")
    if out.text.truncated:
        out.notes.append(f"only its first {len(out.text.sentences)} sentences are kept")
    try:
        meta = reader.metadata or {}
    except Exception:  # a damaged information dictionary: the first page still says what the paper is
        meta = {}
    meta_title = " ".join(str(meta.get("/Title") or "").split())
    found_title, found_authors = _title_and_authors(runs)
    usable = len(meta_title.split()) >= 2 and not _JUNK_TITLE.search(meta_title)
    out.title = meta_title if usable else found_title
    out.authors = _meta_authors(str(meta.get("/Author") or "")) or found_authors
    named = " ".join(str(meta.get(k) or "") for k in ("/doi", "/DOI", "/Subject", "/Keywords"))
    out.doi = find_doi(named) or find_doi(pages[0])
    out.year = find_year(pages[0])
    return out
