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

from tools.corpus import Abstract, load_corpus
from tools.files import move_aside, sqlite_problem
from tools.index.bm25 import bm25_index
from tools.index.dense_store import chroma_client, sentence_text, sentences_collection, upsert_embeddings
from tools.index.embed_cache import CachedEmbedder, EmbeddingCache
from tools.index.live_docs import read_live_docs
from tools.index.local import INDEX_VERSION, CorpusIndex
from tools.index.manifest import MANIFEST, dense_left, index_problem, read_manifest, write_manifest
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
    dense: bool = True,
) -> dict[str, Any]:
    """Build (or reuse, or finish) the index. Rebuilds only when corpus, embedding model variant or index version
    changed. Two phases: the keyword index (BM25 and the corpus copy, about a second), then the dense index (every
    sentence embedded into Chroma, minutes), whose progress the manifest records after each batch, so that a check
    can search by keyword while it is built and an interrupted build resumes where it stopped. ``dense=False`` stops
    after the first phase. ``cache`` is the embedding store (the default one when None)."""
    variant = embedder.variant if embedder else default_variant()  # an index that is up to date loads no model
    fp = fingerprint(corpus_file, limit, variant)
    manifest = read_manifest(index_dir)
    if manifest and manifest.get("fingerprint") == fp and manifest.get("chroma_url") == chroma_url and not force:
        problem = index_problem(index_dir, chroma_url)
        if problem is None:
            if dense and dense_left(manifest) is not None:
                client = chroma_client(index_dir, chroma_url)
                embedder = embedder or get_embedder(variant)
                collection = sentences_collection(client, fp, create=True, embedder=embedder)
                cached = CachedEmbedder(embedder, cache or EmbeddingCache())
                return embed_sentences(index_dir, manifest, collection, cached, progress)
            manifest["reused"] = True
            return manifest
        if on_problem:
            on_problem(f"the index at {index_dir} is damaged ({problem}); building it again")

    t0 = time.perf_counter()
    docs, report = load_corpus(corpus_file, limit)  # CorpusError when nothing is usable
    for problem in report.problems:
        if on_problem:
            on_problem(problem)
    timings = {"corpus_load": round(time.perf_counter() - t0, 2)}

    t = time.perf_counter()
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / MANIFEST).unlink(missing_ok=True)  # an interrupted build is never mistaken for a good one
    if chroma_url is None:
        set_aside_chroma(index_dir / "chroma", on_problem)
    client = chroma_client(index_dir, chroma_url)
    for col in client.list_collections():
        name = col if isinstance(col, str) else col.name
        if name.startswith("ct_"):
            client.delete_collection(name)
    embedder = embedder or get_embedder(variant)
    collection = sentences_collection(client, fp, create=True, embedder=embedder)
    timings["setup"] = round(time.perf_counter() - t, 2)

    t = time.perf_counter()
    bm25_dir = index_dir / "bm25"
    shutil.rmtree(bm25_dir, ignore_errors=True)
    retriever = bm25_index(docs)
    retriever.save(str(bm25_dir), show_progress=False)
    (bm25_dir / "doc_ids.json").write_text(json.dumps([d.doc_id for d in docs]))
    timings["bm25"] = round(time.perf_counter() - t, 2)

    t = time.perf_counter()
    with (index_dir / "corpus.jsonl").open("w") as out:
        for d in docs:
            out.write(d.model_dump_json(exclude_defaults=True) + "\n")
    timings["corpus_copy"] = round(time.perf_counter() - t, 2)

    manifest = {
        "fingerprint": fp,
        "model": MODEL_NAME,
        "embedder": embedder.variant,
        "index_version": INDEX_VERSION,
        "corpus_file": str(corpus_file),
        "chroma_url": chroma_url,
        "docs": len(docs),
        "sentences": sum(len(d.sentences) for d in docs),
        "skipped_lines": len(report.problems),
        "dense": {"done": 0, "of": sum(len(d.sentences) for d in docs)},
        "build_seconds": round(time.perf_counter() - t0, 1),
        "stage_seconds": timings,
        "reused": False,
    }
    write_manifest(index_dir, manifest)
    if not dense:
        return manifest
    return embed_sentences(
        index_dir, manifest, collection, CachedEmbedder(embedder, cache or EmbeddingCache()), progress
    )


def embed_sentences(
    index_dir: Path,
    manifest: dict[str, Any],
    collection: Any,
    cached: CachedEmbedder,
    progress: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    batch: int = 256,
    pause: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """The dense phase: every "title: sentence" of the index's corpus copy embedded into ``collection``, skipping
    those it holds already (an interrupted build resumes), the manifest updated after each batch; then the abstracts
    fetched from live sources. Returns the manifest, whole.

    ``pause`` is called before each batch and may block: the chat's server holds the build there while a check
    runs, so the check has the CPU to itself (a batch of 256 is about a second of embedding on 2 cores).

    The batches before the manifest's count are whole (it is written after each batch is added), so they are
    skipped unread; from there Chroma is asked which ids of each batch it holds until a batch holds none (an
    interrupted build stopped inside it), and the batches after that are new."""
    t0 = time.perf_counter()
    timings: dict[str, float] = dict(manifest.get("stage_seconds", {}))

    def lap(stage: str, since: float) -> float:
        now = time.perf_counter()
        timings[stage] = round(timings.get(stage, 0.0) + now - since, 2)
        return now

    docs = [Abstract.model_validate_json(line) for line in (index_dir / "corpus.jsonl").open(encoding="utf-8")]
    ids = [f"{d.doc_id}:{i}" for d in docs for i in range(len(d.sentences))]
    texts = [sentence_text(d, i) for d in docs for i in range(len(d.sentences))]
    metas: list[dict[str, Any]] = [{"doc_id": d.doc_id, "idx": i} for d in docs for i in range(len(d.sentences))]
    done = int((manifest.get("dense") or {}).get("done", 0))
    bar = tqdm(total=len(texts), initial=done, desc="embedding", unit="text", disable=not progress)
    looking = True
    t = time.perf_counter()
    for start in range(0, len(texts), batch):
        chunk = ids[start : start + batch]
        if start + len(chunk) <= done:
            continue
        if pause:
            t = lap("chroma_add", t)
            pause()
            t = lap("paused", t)
        have = set(collection.get(ids=chunk, include=[])["ids"]) if looking else set()
        looking = bool(have)
        todo = [k for k in range(start, start + len(chunk)) if ids[k] not in have]
        t = lap("chroma_add", t)
        if todo:
            vecs = cached.encode([texts[k] for k in todo])
            t = lap("embedding", t)
            collection.add(ids=[ids[k] for k in todo], embeddings=vecs, metadatas=[metas[k] for k in todo])
            t = lap("chroma_add", t)
            bar.update(len(todo))
        manifest["dense"] = {"done": start + len(chunk), "of": len(texts)}
        manifest["stage_seconds"] = timings
        write_manifest(index_dir, manifest)
        if on_progress:
            on_progress(start + len(chunk), len(texts))
    bar.close()
    live = list(read_live_docs(index_dir, skip={d.doc_id: d for d in docs}).values())
    if live:  # abstracts fetched from live sources outlive a rebuild
        upsert_embeddings(collection, live, cached)
        t = lap("live_docs", t)
    manifest.update(
        {
            "build_seconds": round(float(manifest.get("build_seconds", 0.0)) + time.perf_counter() - t0, 1),
            "stage_seconds": timings,
            "embed_cache": {"hits": cached.hits, "misses": cached.misses},
        }
    )
    write_manifest(index_dir, manifest)
    return manifest


def finish_dense(
    index: CorpusIndex,
    on_progress: Callable[[int, int], None] | None = None,
    cache: EmbeddingCache | None = None,
    pause: Callable[[], None] | None = None,
) -> None:
    """Embeds what the dense index of an open ``index`` still lacks, into the collection its searches read, so that
    the process that serves checks searches by meaning as soon as it is whole, without a restart; ``pause`` as
    ``embed_sentences`` takes it."""
    if index.dense_building() is None:
        return
    cached = CachedEmbedder(index.embedder, cache or EmbeddingCache())
    embed_sentences(index.index_dir, index.manifest, index.collection, cached, False, on_progress, pause=pause)
