"""The local index: Chroma (title-prepended sentence and abstract embeddings) plus BM25 (bm25s).

Layout of `index_dir`: `manifest.json` (fingerprint of corpus + model + index version), `corpus.jsonl` (the
abstracts, so an index is self-contained), `bm25/` and, for embedded Chroma, `chroma/`. Chroma collection names
carry the fingerprint, so a team Chroma server can hold several builds side by side.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from tools.corpus import Abstract, load_corpus
from tools.embedder import MODEL_NAME, ChromaEmbeddingFunction, Embedder, get_embedder

log = logging.getLogger(__name__)

INDEX_VERSION = 2
MANIFEST = "manifest.json"


class IndexMissingError(RuntimeError):
    """No usable index on disk."""


@dataclass(frozen=True)
class Hit:
    doc_id: str
    score: float
    retriever: str
    sentence_index: int | None = None


def fingerprint(corpus_file: Path, limit: int | None) -> str:
    h = hashlib.sha256()
    with corpus_file.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    h.update(f"|{MODEL_NAME}|v{INDEX_VERSION}|limit={limit}".encode())
    return h.hexdigest()[:16]


def sentence_text(doc: Abstract, i: int) -> str:
    """What is embedded for one sentence: the title prepended (seed 002)."""
    return f"{doc.title}: {doc.sentences[i]}"


def _tokenize(texts: Sequence[str]) -> list[list[str]]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    tokens = bm25s.tokenize(list(texts), stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)
    return [list(t) for t in tokens]


def _chroma_client(index_dir: Path, chroma_url: str | None) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if chroma_url:
        from urllib.parse import urlparse

        u = urlparse(chroma_url)
        return chromadb.HttpClient(
            host=u.hostname or "127.0.0.1",
            port=u.port or 8000,
            ssl=u.scheme == "https",
            settings=chroma_settings,
        )
    return chromadb.PersistentClient(path=str(index_dir / "chroma"), settings=chroma_settings)


def _collections(client: Any, fp: str, create: bool) -> tuple[Any, Any]:
    ef = ChromaEmbeddingFunction()
    meta = {"hnsw:space": "cosine"}
    names = (f"ct_sentences_{fp}", f"ct_abstracts_{fp}")
    if create:
        return (
            client.get_or_create_collection(names[0], embedding_function=ef, metadata=meta),
            client.get_or_create_collection(names[1], embedding_function=ef, metadata=meta),
        )
    return client.get_collection(names[0], embedding_function=ef), client.get_collection(
        names[1], embedding_function=ef
    )


def read_manifest(index_dir: Path) -> dict[str, Any] | None:
    path = index_dir / MANIFEST
    if not path.is_file():
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text())
        return data
    except (OSError, json.JSONDecodeError):
        return None


def build_index(
    corpus_file: Path,
    index_dir: Path,
    chroma_url: str | None = None,
    limit: int | None = None,
    force: bool = False,
    progress: bool = True,
    embedder: Embedder | None = None,
    on_problem: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Build (or reuse) the index. Rebuilds only when corpus, model or index version changed."""
    fp = fingerprint(corpus_file, limit)
    manifest = read_manifest(index_dir)
    if manifest and manifest.get("fingerprint") == fp and manifest.get("chroma_url") == chroma_url and not force:
        manifest["reused"] = True
        return manifest

    docs, report = load_corpus(corpus_file, limit)  # CorpusError when nothing is usable
    for problem in report.problems:
        if on_problem:
            on_problem(problem)

    t0 = time.perf_counter()
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / MANIFEST).unlink(missing_ok=True)  # an interrupted build is never mistaken for a good one
    embedder = embedder or get_embedder()
    client = _chroma_client(index_dir, chroma_url)
    for col in client.list_collections():
        name = col if isinstance(col, str) else col.name
        if name.startswith("ct_"):
            client.delete_collection(name)
    sentences_col, abstracts_col = _collections(client, fp, create=True)

    # Sentences: "title: sentence" embeddings.
    ids: list[str] = []
    texts: list[str] = []
    metas: list[dict[str, Any]] = []
    for doc in docs:
        for i in range(len(doc.sentences)):
            ids.append(f"{doc.doc_id}:{i}")
            texts.append(sentence_text(doc, i))
            metas.append({"doc_id": doc.doc_id, "idx": i})
    batch = min(2048, int(client.get_max_batch_size()))
    bar = tqdm(total=len(texts) + len(docs), desc="embedding", unit="text", disable=not progress)
    for start in range(0, len(texts), batch):
        vecs = embedder.encode(texts[start : start + batch])
        sentences_col.add(ids=ids[start : start + batch], embeddings=list(vecs), metadatas=metas[start : start + batch])
        bar.update(len(vecs))
    # Abstracts: title + abstract text (truncated by the model's window).
    for start in range(0, len(docs), batch):
        chunk = docs[start : start + batch]
        vecs = embedder.encode([f"{d.title}: {d.text}" for d in chunk])
        abstracts_col.add(
            ids=[d.doc_id for d in chunk],
            embeddings=list(vecs),
            metadatas=[{"doc_id": d.doc_id} for d in chunk],
        )
        bar.update(len(vecs))
    bar.close()

    import bm25s

    bm25_dir = index_dir / "bm25"
    shutil.rmtree(bm25_dir, ignore_errors=True)
    retriever = bm25s.BM25()
    retriever.index(_tokenize([f"{d.title} {d.text}" for d in docs]), show_progress=False)
    retriever.save(str(bm25_dir), show_progress=False)
    (bm25_dir / "doc_ids.json").write_text(json.dumps([d.doc_id for d in docs]))

    with (index_dir / "corpus.jsonl").open("w") as out:
        for d in docs:
            out.write(d.model_dump_json(exclude_defaults=True) + "\n")

    manifest = {
        "fingerprint": fp,
        "model": MODEL_NAME,
        "index_version": INDEX_VERSION,
        "corpus_file": str(corpus_file),
        "chroma_url": chroma_url,
        "docs": len(docs),
        "sentences": len(texts),
        "skipped_lines": len(report.problems),
        "build_seconds": round(time.perf_counter() - t0, 1),
        "reused": False,
    }
    (index_dir / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


class CorpusIndex:
    """Read side of the index: BM25 and dense search, sentence embeddings of chosen documents."""

    def __init__(self, index_dir: Path, chroma_url: str | None = None, embedder: Embedder | None = None) -> None:
        manifest = read_manifest(index_dir)
        if manifest is None:
            raise IndexMissingError(f"no index at {index_dir}: run `claimtrace index` first")
        import bm25s

        self.manifest = manifest
        self.docs: dict[str, Abstract] = {}
        with (index_dir / "corpus.jsonl").open() as fh:
            for line in fh:
                doc = Abstract.model_validate_json(line)
                self.docs[doc.doc_id] = doc
        self._bm25 = bm25s.BM25.load(str(index_dir / "bm25"), show_progress=False)
        self._bm25_ids: list[str] = json.loads((index_dir / "bm25" / "doc_ids.json").read_text())
        self._embedder = embedder or get_embedder()
        try:
            client = _chroma_client(index_dir, chroma_url or manifest.get("chroma_url"))
            self._sentences, self._abstracts = _collections(client, manifest["fingerprint"], create=False)
        except Exception as e:  # chromadb raises several types for a missing collection or server
            raise IndexMissingError(f"the Chroma collections of this index are unavailable ({e})") from e

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embedder.encode(list(texts))

    def bm25(self, query: str, k: int) -> list[Hit]:
        tokens = _tokenize([query])
        vocab = self._bm25.vocab_dict
        tokens = [[t for t in tokens[0] if t in vocab]]
        if not tokens[0]:
            return []
        k = min(k, len(self._bm25_ids))
        docs, scores = self._bm25.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [
            Hit(self._bm25_ids[int(i)], float(s), "bm25")
            for i, s in zip(docs[0], scores[0], strict=True)
            if float(s) > 0
        ]

    def dense_sentences(self, query_vec: np.ndarray, k: int) -> list[Hit]:
        """Best title-prepended sentence per document, documents ranked by it."""
        res = self._sentences.query(
            query_embeddings=[query_vec.tolist()], n_results=k * 4, include=["metadatas", "distances"]
        )
        best: dict[str, Hit] = {}
        for meta, dist in zip(res["metadatas"][0], res["distances"][0], strict=True):
            doc_id = str(meta["doc_id"])
            if doc_id not in best:
                best[doc_id] = Hit(doc_id, 1.0 - float(dist), "dense_sentence", int(meta["idx"]))
        return sorted(best.values(), key=lambda h: -h.score)[:k]

    def dense_abstracts(self, query_vec: np.ndarray, k: int) -> list[Hit]:
        res = self._abstracts.query(query_embeddings=[query_vec.tolist()], n_results=k, include=["distances"])
        return [
            Hit(str(i), 1.0 - float(d), "dense_abstract")
            for i, d in zip(res["ids"][0], res["distances"][0], strict=True)
        ]

    def sentence_vectors(self, doc_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored sentence embeddings of the given documents: doc_id -> (n_sentences, dim)."""
        out: dict[str, np.ndarray] = {}
        for doc_id in doc_ids:
            n = len(self.docs[doc_id].sentences)
            res = self._sentences.get(ids=[f"{doc_id}:{i}" for i in range(n)], include=["embeddings"])
            by_id = dict(zip(res["ids"], res["embeddings"], strict=True))
            out[doc_id] = np.asarray([by_id[f"{doc_id}:{i}"] for i in range(n)], dtype=np.float32)
        return out
