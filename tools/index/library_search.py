"""How `local` and `library` split the one index: which of its documents a check's local search tools rank.

The index holds the built corpus, the abstracts fetched from live sources and the user's library (source
"library", tools.documents.library). `local` is the corpus and the fetched abstracts; `library` is the user's documents;
together they are the whole index, ranked on the same lists (one BM25 score, one dense similarity), so that a
document of either kind competes on its merits. A paper that is in the library and also in the corpus or among the
fetched abstracts (same DOI or PMID) is read from the library's copy when the library is searched, and from the
other when it is not.

`library` alone searches a BM25 over the library's documents only (built once per set of documents) and the dense
index filtered to them; `local` alone asks both lists for as many more hits as the library holds and leaves those
out."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tools.corpus import Abstract
from tools.documents.library import LIBRARY
from tools.index.bm25 import Hit, bm25_index, bm25_search

EMPTY_NOTE = "Your library holds no documents yet (add PDFs, BibTeX or RIS files with `claimtrace add`)."


@dataclass(frozen=True)
class Scope:
    """The documents a search may return: only `include` (when set), never `exclude`."""

    include: frozenset[str] | None = None
    exclude: frozenset[str] = frozenset()


def library_ids(docs: Mapping[str, Abstract]) -> frozenset[str]:
    """The ids of the user's documents in an index."""
    return frozenset(d.doc_id for d in docs.values() if d.source == LIBRARY)


def scope_of(
    docs: Mapping[str, Abstract], local: bool, library: bool, mine: frozenset[str] | None = None
) -> Scope | None:
    """The documents of a `local` and/or `library` search; None when that is the whole index (no filter). ``mine``:
    the library's ids when the caller has them (library_ids)."""
    mine = library_ids(docs) if mine is None else mine
    if not mine:
        return None if local else Scope(include=frozenset())
    if not local:
        return Scope(include=mine) if library else Scope(include=frozenset())
    if not library:
        return Scope(exclude=mine)
    keys = {k for i in mine for k in _keys(docs[i])}
    twins = {d.doc_id for d in docs.values() if d.doc_id not in mine and any(k in keys for k in _keys(d))}
    return Scope(exclude=frozenset(twins)) if twins else None


def _keys(doc: Abstract) -> list[str]:
    return [k for k in (f"doi:{doc.doi}" if doc.doi else "", f"pmid:{doc.pmid}" if doc.pmid else "") if k]


_bm25_lock = threading.Lock()
_bm25_cache: dict[tuple[int, frozenset[str]], tuple[Any, list[str]]] = {}


def _library_bm25(docs: Mapping[str, Abstract], ids: frozenset[str]) -> tuple[Any, list[str]]:
    """A BM25 over the given documents of one index, kept for the last (index, documents) asked for: a library
    document's text never changes under its id (tools.index.local keeps the first)."""
    key = (id(docs), ids)
    with _bm25_lock:
        if key not in _bm25_cache:
            order = sorted(ids)
            _bm25_cache.clear()
            _bm25_cache[key] = (bm25_index([docs[i] for i in order]), order)
        return _bm25_cache[key]


class ScopedIndex:
    """The search side of an index (tools.index.search.make_search_tools uses it) limited to a Scope."""

    def __init__(self, index: Any, scope: Scope) -> None:
        self.index = index
        self.scope = scope
        self.docs = index.docs

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        result: np.ndarray = self.index.embed(texts)
        return result

    def bm25(self, query: str, k: int) -> list[Hit]:
        include, exclude = self.scope.include, self.scope.exclude
        if include is not None:
            if not include:
                return []
            retriever, ids = _library_bm25(self.docs, include)
            return bm25_search(retriever, ids, query, k)
        hits: list[Hit] = self.index.bm25(query, k + len(exclude))
        return [h for h in hits if h.doc_id not in exclude][:k]

    def dense_sentences(self, query_vec: np.ndarray, k: int) -> list[Hit]:
        include, exclude = self.scope.include, self.scope.exclude
        if include is not None and not include:
            return []
        where = {"doc_id": {"$in": sorted(include)}} if include is not None else {"doc_id": {"$nin": sorted(exclude)}}
        hits: list[Hit] = self.index.dense_sentences(query_vec, k, where=where)
        return hits


def scoped(index: Any, local: bool, library: bool, explicit: bool) -> tuple[Any | None, list[str]]:
    """The index a check's local tools search (the index itself when nothing is left out; None when nothing is to
    be searched), and a note when the library was chosen explicitly (not by "auto") and holds nothing."""
    mine = library_ids(index.docs)  # one pass over the index's documents per search
    note = [EMPTY_NOTE] if library and explicit and not mine else []
    scope = scope_of(index.docs, local, library, mine)
    if scope is not None and scope.include == frozenset():
        return None, note
    return (index if scope is None else ScopedIndex(index, scope)), note
