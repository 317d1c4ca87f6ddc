"""One paper found by several sources (or already in the index) becomes one document: records sharing a DOI or a
PMID are merged (transitively), and the merged document takes the id the index already knows it by, else
"doi:...", else "pmid:...", else its source's own id."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tools.corpus import Abstract
from tools.live.normalize import live_doc_id

Known = Callable[[str | None, str | None], str | None]  # (doi, pmid) -> doc id already in the index


def combine(first: Abstract, other: Abstract) -> Abstract:
    """`first` (seen first) keeps its text; missing metadata is filled from `other`; the larger citation count and
    any retraction win; publication types, MeSH terms and notices are the union of both."""
    counts = [c for c in (first.citation_count, other.citation_count) if c is not None]
    return first.model_copy(
        update={
            "year": first.year or other.year,
            "venue": first.venue or other.venue,
            "doi": first.doi or other.doi,
            "pmid": first.pmid or other.pmid,
            "url": first.url or other.url,
            "citation_count": max(counts) if counts else None,
            "retracted": first.retracted or other.retracted,
            "publication_types": union(first.publication_types, other.publication_types),
            "mesh_terms": union(first.mesh_terms, other.mesh_terms),
            "notices": union(first.notices, other.notices),
            "venue_citedness": first.venue_citedness
            if first.venue_citedness is not None
            else other.venue_citedness,
        }
    )


def union(a: Sequence[str], b: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*a, *b]))


class _Groups:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)  # the earliest record stays the root


def merge_results(
    results: Sequence[tuple[str, Sequence[Abstract]]], known: Known | None = None
) -> tuple[dict[str, list[str]], dict[str, Abstract]]:
    """(list key, abstracts best first) per searched list -> (list key -> doc ids best first, doc id -> merged
    abstract). Each list keeps its own order; a document appears once per list."""
    records = [doc for _, docs in results for doc in docs]
    groups = _Groups(len(records))
    first_with: dict[tuple[str, str], int] = {}
    for i, doc in enumerate(records):
        keys = [("doi", doc.doi)] if doc.doi else []
        keys += [("pmid", doc.pmid)] if doc.pmid else []
        keys += [] if keys else [("id", doc.doc_id)]
        for kind, value in keys:
            if value:
                groups.union(i, first_with.setdefault((kind, str(value)), i))

    merged: dict[int, Abstract] = {}
    for i, doc in enumerate(records):
        root = groups.find(i)
        merged[root] = combine(merged[root], doc) if root in merged else doc

    final_id: dict[int, str] = {}
    docs: dict[str, Abstract] = {}
    for root, doc in merged.items():
        doc_id = (known(doc.doi, doc.pmid) if known else None) or live_doc_id(doc.doi, doc.pmid, doc.doc_id)
        final_id[root] = doc_id
        doc = doc.model_copy(update={"doc_id": doc_id})
        docs[doc_id] = combine(docs[doc_id], doc) if doc_id in docs else doc

    ranked: dict[str, list[str]] = {}
    i = 0
    for list_key, found in results:
        ids: list[str] = []
        for _ in found:
            doc_id = final_id[groups.find(i)]
            if doc_id not in ids:
                ids.append(doc_id)
            i += 1
        ranked[list_key] = ids
    return ranked, docs
