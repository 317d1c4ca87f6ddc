"""Turning one record of a live source into the corpus abstract model: clean text, sentence split (the same pysbd
splitter the BEIR loader uses), normalised DOI/PMID, and a stable, namespaced document id."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from tools.corpus import Abstract, split_sentences

log = logging.getLogger(__name__)
R = TypeVar("R")
P = TypeVar("P")

MAX_SENTENCES = 60  # a longer "abstract" is usually a full text or a table dump; keep the head of it

_TAG = re.compile(r"<[^>]+>")
_HEADING = re.compile(r"<h[1-6][^>]*>\s*(.*?)\s*</h[1-6]>", re.IGNORECASE | re.DOTALL)
_BLOCK = re.compile(r"</?(p|div|br|sec|li)\b[^>]*>", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_DOI_PREFIX = re.compile(r"^(https?://(dx\.)?doi\.org/|doi:)", re.IGNORECASE)
_PMID_URL = re.compile(r"^https?://pubmed\.ncbi\.nlm\.nih\.gov/", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*")

# Words that make a question a question; keyword engines (Europe PMC, PubMed) AND every term, so they only cost hits.
_STOP = frozenset(
    re.findall(
        r"\w+",
        """a an and are as at be been but by can could did do does for from had has have how if in into is it its
        may might no not of on or should such than that the their then there these they this those to was were
        what when where whether which who why will with would""",
    )
)


def clean_text(raw: str | None) -> str:
    """Plain text of an abstract field: HTML headings become "Label: ", other tags and entities are removed,
    whitespace collapsed."""
    if not raw:
        return ""
    text = _HEADING.sub(lambda m: f" {m.group(1).strip().rstrip(':')}: ", raw)
    text = _BLOCK.sub(" ", text)
    text = html.unescape(_TAG.sub("", text))
    return _SPACE.sub(" ", text).strip()


def normalize_doi(raw: str | None) -> str | None:
    """Bare, lower-case DOI ("10.1/abc") from a DOI, a doi: name or a doi.org URL; None when it is not one."""
    if not raw:
        return None
    doi = _DOI_PREFIX.sub("", str(raw).strip()).strip().lower()
    return doi if doi.startswith("10.") and "/" in doi else None


def normalize_pmid(raw: str | int | None) -> str | None:
    """Digits of a PMID, also from a pubmed.ncbi.nlm.nih.gov URL."""
    if raw is None:
        return None
    pmid = _PMID_URL.sub("", str(raw).strip()).strip("/ ")
    return pmid if pmid.isdigit() and pmid != "0" else None


def live_doc_id(doi: str | None, pmid: str | None, fallback: str) -> str:
    """Stable, namespaced id: "doi:10.1/abc", else "pmid:123", else the source's own ("openalex:W1")."""
    if doi:
        return f"doi:{doi}"
    if pmid:
        return f"pmid:{pmid}"
    return fallback


def keyword_query(query: str, max_terms: int = 10) -> str:
    """A search question as plain keywords: no question words or punctuation, at most `max_terms` terms."""
    terms: list[str] = []
    for word in _WORD.findall(query):
        if word.lower() in _STOP or word.lower() in (t.lower() for t in terms):
            continue
        terms.append(word)
    return " ".join(terms[:max_terms]) or query.strip()


def make_abstract(
    *,
    source: str,
    native_id: str,
    title: str | None,
    abstract: str | None,
    year: int | str | None = None,
    venue: str | None = None,
    doi: str | None = None,
    pmid: str | int | None = None,
    url: str | None = None,
    citation_count: int | None = None,
    retracted: bool = False,
    venue_citedness: float | None = None,
    publication_types: Sequence[str] = (),
    mesh_terms: Sequence[str] = (),
    notices: Sequence[str] = (),
) -> Abstract | None:
    """One normalised abstract, or None when the record has no abstract text (nothing to cite)."""
    text = clean_text(abstract)
    sentences = split_sentences(text)[:MAX_SENTENCES] if text else []
    if not sentences:
        return None
    doi_n, pmid_n = normalize_doi(doi), normalize_pmid(pmid)
    year_n: int | None = None
    if year is not None and str(year).strip()[:4].isdigit():
        year_n = int(str(year).strip()[:4])
    return Abstract(
        doc_id=live_doc_id(doi_n, pmid_n, f"{source}:{native_id}"),
        title=clean_text(title) or "(untitled)",
        sentences=sentences,
        year=year_n,
        venue=clean_text(venue) or None,
        doi=doi_n,
        pmid=pmid_n,
        url=url or None,
        citation_count=citation_count if isinstance(citation_count, int) and citation_count >= 0 else None,
        retracted=bool(retracted),
        venue_citedness=venue_citedness,
        source=source,
        publication_types=_distinct(publication_types),
        mesh_terms=_distinct(mesh_terms),
        notices=_distinct(notices),
    )


def _distinct(values: Sequence[str]) -> list[str]:
    """Cleaned, non-empty values, each once, in their first order."""
    return list(dict.fromkeys(v for v in (clean_text(x) for x in values) if v))


def each_record(parse: Callable[[R], P | None], records: Iterable[R], source: str) -> list[P]:
    """``parse`` applied to every record of a response, keeping what it returns: a record whose fields have types
    the source does not document (a list where a title belongs, a number for a journal) is skipped with a log
    line, so that one bad record costs that record, not the source's whole answer."""
    out: list[P] = []
    for record in records:
        try:
            parsed = parse(record)
        except (TypeError, AttributeError, ValueError, KeyError, IndexError) as e:
            log.warning("%s: skipped a record that is not in the documented format (%s: %s)", source,
                        type(e).__name__, e)
            continue
        if parsed is not None:
            out.append(parsed)
    return out
