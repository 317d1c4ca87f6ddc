"""The local index: Chroma (title-prepended sentence embeddings) plus BM25 (bm25s); tools.index.build writes it.

Layout of `index_dir`: `manifest.json` (fingerprint of corpus + model + index version), `corpus.jsonl` (the
abstracts, so an index is self-contained), `bm25/` and, for embedded Chroma, `chroma/`. Chroma collection names
carry the fingerprint, so a team Chroma server can hold several builds side by side.

Abstracts fetched from live sources are added later (`CorpusIndex.add_abstracts`): embedded into the same Chroma
collection, appended to `live_docs.jsonl` (a later line of the same id refreshes its metadata) and searched by a
second, in-memory BM25 over just them whose hits are merged by score with the corpus BM25. A rebuild of the index
embeds them again. `CorpusIndex.remove_docs` takes kept documents out again (tools.index.live_docs); an open index
notices a removal made by another process (`claimtrace library remove` beside a running chat) before its next search.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tools.corpus import Abstract, Origin
from tools.files import storage_problem
from tools.index.bm25 import Hit, bm25_index, bm25_search
from tools.index.dense_store import (
    DenseStoreError,
    chroma_client,
    holds_whole_corpus,
    sentence_text,
    sentences_collection,
    store_errors,
    upsert_embeddings,
)
from tools.index.errors import DenseIndexBuilding, IndexDamagedError, IndexMissingError
from tools.index.live_docs import (
    LIVE_DOCS,
    Documents,
    Removed,
    append_live_docs,
    finish_removal,
    now_iso,
    pending_removal,
    read_live_docs,
    refreshed,
    removal_stamp,
    remove_documents,
    removed_log,
)
from tools.index.manifest import MANIFEST, dense_left, read_manifest
from tools.models.embedder import Embedder, get_embedder

log = logging.getLogger(__name__)
INDEX_VERSION = 2
__all__ = ["LIVE_DOCS", "CorpusIndex", "read_live_docs"]


class CorpusIndex:
    """Read side of the index: BM25 and dense search, sentence embeddings of chosen documents."""

    def __init__(self, index_dir: Path, chroma_url: str | None = None, embedder: Embedder | None = None) -> None:
        manifest = read_manifest(index_dir)
        if manifest is None and (index_dir / MANIFEST).exists():
            raise IndexDamagedError(index_dir, f"{MANIFEST} cannot be read")
        if manifest is None:
            raise IndexMissingError(f"no index at {index_dir}: run `claimtrace index` first")
        self.manifest = manifest
        self.docs: dict[str, Abstract] = Documents({}, {})
        self._read_files(index_dir)
        self.index_dir = index_dir
        self._lock = threading.Lock()
        self._live_ids: list[str] = []
        self._live_bm25: tuple[Any, list[str]] | None = None  # (retriever, its doc ids), swapped as one
        self._corpus = dict(self.docs)
        # Queries are embedded by the model variant that embedded the index (an index built before variants were
        # recorded holds sentence-transformers fp32 vectors).
        self._embedder = embedder or get_embedder(manifest.get("embedder", "torch-fp32"))
        self._where = chroma_url or manifest.get("chroma_url") or "embedded Chroma"
        url = chroma_url or manifest.get("chroma_url")
        self._server = url
        try:
            client = chroma_client(index_dir, url)
            self._sentences = sentences_collection(client, manifest["fingerprint"], False, self._embedder)
        except Exception as e:  # chromadb raises several types for a missing collection or server
            if (problem := storage_problem(e)) is not None:  # the disk, not the index: a rebuild would not help
                raise IndexMissingError(
                    f"the index at {index_dir} cannot be opened: {problem} (embedded Chroma writes to its folder "
                    "even to search)"
                ) from e
            if url is None:
                raise IndexDamagedError(index_dir, f"chroma cannot be read: {type(e).__name__}") from e
            raise IndexMissingError(f"the Chroma collections of this index are unavailable ({e})") from e
        try:  # a removal a crash interrupted is finished before anything is searched
            finish_removal(index_dir, self._sentences)
        except store_errors() as e:
            log.warning("a pending removal could not reach the Chroma store (%s); the next open tries again", e)
        self._load_live()

    def _load_live(self) -> None:
        """The kept documents read (again) from `live_docs.jsonl`, less those a removal that is under way takes
        out, with their BM25 and id lookups; the documents that left since the last read stay readable by id."""
        self._stamp = removal_stamp(self.index_dir)  # taken first: a removal during the read is noticed next time
        leaving = {e.doc_id for e in pending_removal(self.index_dir)}
        live = {i: d for i, d in read_live_docs(self.index_dir, skip=self._corpus).items() if i not in leaving}
        before = self.docs
        left = {**getattr(before, "left", {}), **{i: d for i, d in before.items() if i not in self._corpus}}
        self.docs = Documents({**self._corpus, **live}, {i: d for i, d in left.items() if i not in live})
        self._by_doi: dict[str, str] = {}
        self._by_pmid: dict[str, str] = {}
        for doc in self.docs.values():
            self._remember_ids(doc)
        # fetched abstracts removed by the user are not fetched into the index again (library documents may be
        # added again on purpose)
        self._withdrawn = {i for i, r in removed_log(self.index_dir).items() if r.source != "library"}
        self._rebuild_live_bm25(list(live))

    def _removed_elsewhere(self) -> bool:
        return removal_stamp(self.index_dir) != self._stamp

    def notice_removals(self) -> None:
        """Read the kept documents again when a removal began or ended since they were read (by another process:
        `claimtrace library remove`, the MCP server), so that this search, and every later one, leaves them out."""
        if self._removed_elsewhere():
            with self._lock:
                if self._removed_elsewhere():
                    self._load_live()

    def _read_files(self, index_dir: Path) -> None:
        """The corpus copy and BM25; a file that cannot be read is named in an IndexDamagedError."""
        import bm25s

        part = "corpus.jsonl"
        try:  # each reader (pydantic, json, numpy, the OS) raises its own kind of error for a damaged file
            with (index_dir / part).open(encoding="utf-8") as fh:
                for line in fh:
                    doc = Abstract.model_validate_json(line)
                    self.docs[doc.doc_id] = doc
            part = "bm25"
            self._bm25 = bm25s.BM25.load(str(index_dir / "bm25"), show_progress=False)
            self._bm25_ids: list[str] = json.loads((index_dir / "bm25" / "doc_ids.json").read_text())
        except Exception as e:
            raise IndexDamagedError(index_dir, f"{part} cannot be read: {type(e).__name__}") from e

    @property
    def embedder(self) -> Embedder:
        """The model variant that embeds this index's sentences and its queries."""
        return self._embedder

    @property
    def collection(self) -> Any:
        """The Chroma collection of this index's sentence embeddings."""
        return self._sentences

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embedder.encode(list(texts))

    def bm25(self, query: str, k: int) -> list[Hit]:
        self.notice_removals()
        hits = bm25_search(self._bm25, self._bm25_ids, query, k)
        live = self._live_bm25
        if live is not None:
            hits = sorted(hits + bm25_search(live[0], live[1], query, k), key=lambda h: -h.score)[:k]
        return hits

    # --- abstracts fetched from live sources ------------------------------------------------------------------

    def _remember_ids(self, doc: Abstract) -> None:
        if doc.doi:
            self._by_doi.setdefault(doc.doi.lower(), doc.doc_id)
        if doc.pmid:
            self._by_pmid.setdefault(doc.pmid, doc.doc_id)

    def find_doc(self, doi: str | None, pmid: str | None) -> str | None:
        """The id of the document already indexed with this DOI (first) or PMID, if any."""
        if doi and doi.lower() in self._by_doi:
            return self._by_doi[doi.lower()]
        if pmid and pmid in self._by_pmid:
            return self._by_pmid[pmid]
        return None

    def _rebuild_live_bm25(self, live_ids: list[str]) -> None:
        self._live_ids = live_ids
        if not live_ids:
            self._live_bm25 = None
            return
        self._live_bm25 = (bm25_index([self.docs[i] for i in live_ids]), live_ids)

    def add_abstracts(self, docs: Sequence[Abstract]) -> list[str]:
        """Add fetched abstracts so that this and later checks find them (BM25, dense search, evidence lookup).

        A new id is embedded and stored; a known live document keeps its text (so stored sentence numbers stay
        valid) and gets its metadata refreshed (citations, retraction, notices, venue signal, publication types and
        MeSH terms). Documents of the built corpus
        are never changed. Returns the ids that were new."""
        with self._lock:
            if self._removed_elsewhere():  # a document removed elsewhere is not written back by a refresh
                self._load_live()
            new: list[Abstract] = []
            changed: list[Abstract] = []
            for doc in docs:
                old = self.docs.get(doc.doc_id)
                if old is None:
                    if doc.doc_id not in {d.doc_id for d in new} and doc.doc_id not in self._withdrawn:
                        origin = doc.origin or Origin()
                        new.append(doc.model_copy(update={"origin": origin.model_copy(update={"added_at": now_iso()})}))
                    continue
                if old.source is None:
                    continue
                fresh = refreshed(old, doc)
                if fresh != old:
                    changed.append(fresh)
            if new:
                upsert_embeddings(self._sentences, new, self._embedder)
            if not new and not changed:
                return []
            append_live_docs(self.index_dir, [*new, *changed])
            for doc in [*new, *changed]:
                self.docs[doc.doc_id] = doc
                self._remember_ids(doc)
            if new:
                self._rebuild_live_bm25([*self._live_ids, *(d.doc_id for d in new)])
            return [d.doc_id for d in new]

    def remove_docs(self, doc_ids: Sequence[str]) -> list[Removed]:
        """Take kept documents (fetched or the library's) out of the index, on disk and for this process's later
        searches; ids of the built corpus or not in the index are left alone. Returns what was removed."""
        with self._lock:
            docs = [self.docs[i] for i in dict.fromkeys(doc_ids) if i in self.docs and i not in self._corpus]
            removed = remove_documents(self.index_dir, self._sentences, docs) if docs else []
            self._load_live()
            return removed

    def dense_building(self) -> tuple[int, int] | None:
        """(sentences embedded, sentences in all) while the dense index is still being built (by this process or
        another: the manifest on disk says); None once it is whole, or once the Chroma server holds the whole corpus
        though the manifest says the build is under way (then this process neither builds nor waits for it)."""
        if dense_left(self.manifest) is None:
            return None
        self.manifest = read_manifest(self.index_dir) or self.manifest
        left = dense_left(self.manifest)
        if left is not None and self._server and holds_whole_corpus(self._sentences, [*self._corpus.values()], left[1]):
            self.manifest = {**self.manifest, "dense": {"done": left[1], "of": left[1]}}
            return None
        return left

    def dense_sentences(self, query_vec: np.ndarray, k: int, where: dict[str, Any] | None = None) -> list[Hit]:
        """Best title-prepended sentence per document, documents ranked by it; `where` filters Chroma's metadata.
        Raises DenseIndexBuilding while the dense index is not whole (a search of part of it would rank the part)."""
        if (building := self.dense_building()) is not None:
            raise DenseIndexBuilding(*building)
        self.notice_removals()
        try:
            res = self._sentences.query(
                query_embeddings=[query_vec.tolist()], n_results=k * 4, include=["metadatas", "distances"], where=where
            )
        except store_errors() as e:
            raise DenseStoreError(
                f"the Chroma store ({self._where}) stopped answering ({type(e).__name__}: {e})"
            ) from e
        best: dict[str, Hit] = {}
        for meta, dist in zip(res["metadatas"][0], res["distances"][0], strict=True):
            if meta is None:  # a vector whose record another process deleted (embedded Chroma's copy in memory)
                continue
            doc_id = str(meta["doc_id"])
            # a shared Chroma server may hold abstracts another machine fetched and this one has no text of
            if doc_id not in best and doc_id in self.docs:
                best[doc_id] = Hit(doc_id, 1.0 - float(dist), int(meta["idx"]))
        return sorted(best.values(), key=lambda h: -h.score)[:k]

    def sentence_vectors(self, doc_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Sentence embeddings of the given documents: doc_id -> (n_sentences, dim). Read from the store; embedded
        here, by the same model, when the store stopped answering."""
        try:
            return self._stored_vectors(doc_ids)
        except store_errors() as e:
            log.warning("the Chroma store stopped answering (%s); embedding the sentences here", e)
            docs = [self.docs[d] for d in doc_ids]
            return {d.doc_id: self.embed([sentence_text(d, i) for i in range(len(d.sentences))]) for d in docs}

    def _stored_vectors(self, doc_ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for doc_id in doc_ids:
            doc = self.docs[doc_id]
            n = len(doc.sentences)
            res = self._sentences.get(ids=[f"{doc_id}:{i}" for i in range(n)], include=["embeddings"])
            by_id = dict(zip(res["ids"], res["embeddings"], strict=True))
            if len(by_id) < n and doc_id not in self.docs:  # removed during the check: embedded here, not stored
                out[doc_id] = self.embed([sentence_text(doc, i) for i in range(n)])
                continue
            if len(by_id) < n:  # e.g. a fetched abstract whose embeddings a new Chroma server never got
                with self._lock:
                    upsert_embeddings(self._sentences, [doc], self._embedder)
                res = self._sentences.get(ids=[f"{doc_id}:{i}" for i in range(n)], include=["embeddings"])
                by_id = dict(zip(res["ids"], res["embeddings"], strict=True))
            out[doc_id] = np.asarray([by_id[f"{doc_id}:{i}"] for i in range(n)], dtype=np.float32)
        return out
