"""Keyword search (BM25, bm25s with the Snowball English stemmer) over title + abstract text, and the hit model
the local retrievers share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tools.corpus import Abstract


@dataclass(frozen=True)
class Hit:
    doc_id: str
    score: float
    sentence_index: int | None = None


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    tokens = bm25s.tokenize(list(texts), stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)
    return [list(t) for t in tokens]


def bm25_index(docs: Sequence[Abstract]) -> Any:
    """A bm25s index over title + abstract text of `docs` (in their order), as the local index builds it."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(tokenize([f"{d.title} {d.text}" for d in docs]), show_progress=False)
    return retriever


def bm25_search(retriever: Any, ids: list[str], query: str, k: int) -> list[Hit]:
    """The `k` best documents of a bm25s index for `query` (ids in index order); none scoring 0."""
    tokens = tokenize([query])
    vocab = retriever.vocab_dict
    tokens = [[t for t in tokens[0] if t in vocab]]
    if not tokens[0]:
        return []
    k = min(k, len(ids))
    docs, scores = retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
    return [Hit(ids[int(i)], float(s)) for i, s in zip(docs[0], scores[0], strict=True) if float(s) > 0]
