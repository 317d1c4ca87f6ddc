"""Which document of the user's library a citation in a pasted text names.

A key ("[@smith2019]", "\\cite{smith2019}") names the entry with that BibTeX key or RIS ID. A number ("[12]") names
the entry of the passage's reference list, which is matched by its DOI, else by the library title it contains. An
author and year ("(Smith et al., 2019)") names the library document whose first author's surname and year they
are, when exactly one does. Nothing is guessed beyond that: a citation no document matches is "not in library"."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from tools.corpus import Abstract
from tools.documents.pdf_text import find_doi
from tools.text.passage import Citation

TITLE_SHARE = 0.9  # share of a title's words, in order-free match, that a reference entry must hold
_NON_WORD = re.compile(r"[^a-z0-9]+")


def _norm(text: str) -> str:
    return f" {_NON_WORD.sub(' ', text.lower()).strip()} "


def _surname(author: str) -> str:
    """ "Smith, John" and "John Smith" -> "smith"."""
    author = author.strip()
    name = author.split(",")[0] if "," in author else (author.split() or [""])[-1]
    return _norm(name).strip()


def by_title(entry: str, docs: Iterable[Abstract]) -> Abstract | None:
    """The library document whose title the reference entry holds (whole, else ``TITLE_SHARE`` of its words)."""
    text = _norm(entry)
    words = set(text.split())
    best: tuple[float, Abstract] | None = None
    for doc in docs:
        title = _norm(doc.title)
        if len(title.split()) < 3:
            continue
        if title in text:
            return doc
        share = sum(w in words for w in title.split()) / len(title.split())
        if share >= TITLE_SHARE and (best is None or share > best[0]):
            best = (share, doc)
    return best[1] if best else None


def match(citation: Citation, references: Mapping[str, str], docs: Iterable[Abstract]) -> tuple[Abstract, str] | None:
    """The library document a citation names and how it was matched ("key", "doi", "title", "author and year")."""
    library = [d for d in docs if d.source == "library"]
    if citation.kind == "key":
        doc = next((d for d in library if d.cite_key and d.cite_key.lower() == citation.value.lower()), None)
        return (doc, "key") if doc else None
    if citation.kind == "number":
        entry = references.get(citation.value)
        if not entry:
            return None
        doi = find_doi(entry)
        doc = next((d for d in library if doi and d.doi and d.doi.lower() == doi.lower()), None)
        if doc:
            return doc, "doi"
        doc = by_title(entry, library)
        return (doc, "title") if doc else None
    author, _, year = citation.value.rpartition(" ")
    found = [
        d for d in library if d.authors and str(d.year) == year and _surname(d.authors[0]) == _norm(author).strip()
    ]
    return (found[0], "author and year") if len(found) == 1 else None


def named_document(query: str, docs: Iterable[Abstract]) -> Abstract:
    """The library document ``query`` names: its id, DOI or citation key exactly, else the one whose title holds
    every word of the query. Raises LookupError saying what matched instead (nothing, or several)."""
    library = [doc for doc in docs if doc.source == "library"]
    if not library:
        raise LookupError("your library is empty; add PDFs or reference files with `claimtrace add`")
    wanted = query.strip().lower()
    exact = [d for d in library if wanted in {d.doc_id.lower(), (d.doi or "").lower(), (d.cite_key or "").lower()}]
    words = _norm(query).split()
    found = exact or [d for d in library if words and all(f" {w} " in _norm(d.title) for w in words)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise LookupError(f"no document of your library ({len(library)}) has the id, DOI, key or title words “{query}”")
    shown = "; ".join(f"{d.doc_id} “{d.title}”" for d in found[:5])
    raise LookupError(f"{len(found)} documents of your library match “{query}”: {shown}; name one by its id")
