"""Building the local index from a corpus file: "title: sentence" embeddings into Chroma, BM25 over title and
abstract, the corpus copied beside them, and a manifest whose fingerprint (corpus + embedding model variant + index
version) says when a rebuild is needed. tools.index.local reads what this writes.

Embeddings go through the content-addressed store of tools.index.embed_cache, so a rebuild embeds only texts that the
same model variant has not embedded before. The manifest records the variant (queries must be embedded by the
same one) and the seconds each stage took."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from tools.corpus import load_corpus
from tools.files import move_aside, sqlite_problem
from tools.index.bm25 import bm25_index
from tools.index.dense_store import chroma_client, sentence_text, sentences_collection, upsert_embeddings
from tools.index.embed_cache import CachedEmbedder, EmbeddingCache
from tools.index.local import INDEX_VERSION, MANIFEST, index_problem, read_live_docs, read_manifest
from tools.models.embedder import MODEL_NAME, Embedder, default_variant, get_embedder
from tools.models.onnx_models import EXPORT_RECIPE


def fingerprint(corpus_file: Path, limit: int | None, variant: str) -> str:
    h = hashlib.sha256()
    with corpus_file.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    # an ONNX variant's vectors also depend on how its graph was exported and quantised
    recipe = f"|recipe{EXPORT_RECIPE}" if variant.startswith("onnx-") else ""
    h.update(f"|{MODEL_NAME}|{variant}{recipe}|v{INDEX_VERSION}|limit={limit}".encode())
    return h.hexdigest()[:16]


def set_aside_chroma(chroma_dir: Path, on_problem: Callable[[str], None] | None) -> None:
    """An embedded Chroma store that SQLite cannot read is moved aside with a timestamp (never deleted), so that the
    build starts an empty one instead of failing on it."""
    problem = sqlite_problem(chroma_dir / "chroma.sqlite3")
    if problem is None:
        return
    moved = move_aside(chroma_dir)
    if on_problem:
        on_problem(f"the Chroma store {chroma_dir} could not be read ({problem}); it was moved to {moved}")


def build_index(
    corpus_file: Path,
    index_dir: Path,
    chroma_url: str | None = None,
    limit: int | None = None,
    force: bool = False,
    progress: bool = True,
    embedder: Embedder | None = None,
    on_problem: Callable[[str], None] | None = None,
    cache: EmbeddingCache | None = None,
) -> dict[str, Any]:
    """Build (or reuse) the index. Rebuilds only when corpus, embedding model variant or index version changed.
    ``cache`` is the embedding store (the default one when None)."""
    variant = embedder.variant if embedder else default_variant()  # an index that is up to date loads no model
    fp = fingerprint(corpus_file, limit, variant)
    manifest = read_manifest(index_dir)
    if manifest and manifest.get("fingerprint") == fp and manifest.get("chroma_url") == chroma_url and not force:
        problem = index_problem(index_dir, chroma_url)
        if problem is None:
            manifest["reused"] = True
            return manifest
        if on_problem:
            on_problem(f"the index at {index_dir} is damaged ({problem}); building it again")

    t0 = time.perf_counter()
    timings: dict[str, float] = {}

    def lap(stage: str, since: float) -> float:
        now = time.perf_counter()
        timings[stage] = round(timings.get(stage, 0.0) + now - since, 2)
        return now

    docs, report = load_corpus(corpus_file, limit)  # CorpusError when nothing is usable
    for problem in report.problems:
        if on_problem:
            on_problem(problem)
    t = lap("corpus_load", t0)

    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / MANIFEST).unlink(missing_ok=True)  # an interrupted build is never mistaken for a good one
    embedder = embedder or get_embedder(variant)
    cached = CachedEmbedder(embedder, cache or EmbeddingCache())
    if chroma_url is None:
        set_aside_chroma(index_dir / "chroma", on_problem)
    client = chroma_client(index_dir, chroma_url)
    for col in client.list_collections():
        name = col if isinstance(col, str) else col.name
        if name.startswith("ct_"):
            client.delete_collection(name)
    sentences_col = sentences_collection(client, fp, create=True, embedder=embedder)

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
    bar = tqdm(total=len(texts), desc="embedding", unit="text", disable=not progress)
    t = lap("setup", t)
    for start in range(0, len(texts), batch):
        vecs = cached.encode(texts[start : start + batch])
        t = lap("embedding", t)
        sentences_col.add(ids=ids[start : start + batch], embeddings=vecs, metadatas=metas[start : start + batch])
        t = lap("chroma_add", t)
        bar.update(len(vecs))
    bar.close()

    bm25_dir = index_dir / "bm25"
    shutil.rmtree(bm25_dir, ignore_errors=True)
    retriever = bm25_index(docs)
    retriever.save(str(bm25_dir), show_progress=False)
    (bm25_dir / "doc_ids.json").write_text(json.dumps([d.doc_id for d in docs]))
    t = lap("bm25", t)

    with (index_dir / "corpus.jsonl").open("w") as out:
        for d in docs:
            out.write(d.model_dump_json(exclude_defaults=True) + "\n")
    t = lap("corpus_copy", t)
    live = list(read_live_docs(index_dir, skip={d.doc_id: d for d in docs}).values())
    if live:  # abstracts fetched from live sources outlive a rebuild
        upsert_embeddings(sentences_col, live, cached)
        t = lap("live_docs", t)

    manifest = {
        "fingerprint": fp,
        "model": MODEL_NAME,
        "embedder": embedder.variant,
        "index_version": INDEX_VERSION,
        "corpus_file": str(corpus_file),
        "chroma_url": chroma_url,
        "docs": len(docs),
        "sentences": len(texts),
        "skipped_lines": len(report.problems),
        "build_seconds": round(time.perf_counter() - t0, 1),
        "stage_seconds": timings,
        "embed_cache": {"hits": cached.hits, "misses": cached.misses},
        "reused": False,
    }
    (index_dir / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest
