"""The index's Chroma store: the client (embedded, or a Chroma server), the sentence collection of a build, what is
embedded for a sentence, and what a store that stops answering looks like (the errors its client raises, and the one
the index raises for them: a Chroma server that went down during a check)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tools.corpus import Abstract
from tools.models.embedder import ChromaEmbeddingFunction, Embedder


class DenseStoreError(RuntimeError):
    """The Chroma store stopped answering; the message names it and the client's reason."""


def store_errors() -> tuple[type[BaseException], ...]:
    """What the Chroma client raises when its store is gone: httpx's errors (a server) or Chroma's own."""
    import httpx
    from chromadb.errors import ChromaError

    return (httpx.HTTPError, ChromaError)


def sentence_text(doc: Abstract, i: int) -> str:
    """What is embedded for one sentence: the title prepended (as in the semantic-search study)."""
    return f"{doc.title}: {doc.sentences[i]}"


def chroma_client(index_dir: Path, chroma_url: str | None) -> Any:
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


def sentences_collection(client: Any, fp: str, create: bool, embedder: Embedder | None = None) -> Any:
    """The sentence collection of build `fp`, whose texts `embedder` embeds. (Indexes built before sentences were
    the only dense unit also hold an abstract collection; nothing reads it, and a rebuild deletes it.)"""
    ef = ChromaEmbeddingFunction(embedder)
    name = f"ct_sentences_{fp}"
    if create:
        return client.get_or_create_collection(name, embedding_function=ef, metadata={"hnsw:space": "cosine"})
    return client.get_collection(name, embedding_function=ef)


def upsert_embeddings(sentences_col: Any, docs: Sequence[Abstract], embedder: Embedder, batch: int = 512) -> int:
    """Embed and upsert the title-prepended sentences of `docs`; returns how many."""
    ids = [f"{d.doc_id}:{i}" for d in docs for i in range(len(d.sentences))]
    texts = [sentence_text(d, i) for d in docs for i in range(len(d.sentences))]
    metas = [{"doc_id": d.doc_id, "idx": i} for d in docs for i in range(len(d.sentences))]
    for start in range(0, len(texts), batch):
        vecs = embedder.encode(texts[start : start + batch])
        sentences_col.upsert(
            ids=ids[start : start + batch], embeddings=list(vecs), metadatas=metas[start : start + batch]
        )
    return len(texts)


def holds_whole_corpus(collection: Any, corpus: Sequence[Abstract], sentences: int) -> bool:
    """Whether ``collection`` holds every one of the corpus's ``sentences`` (`claimtrace index --chroma-url` or
    another instance built it there). The build adds the corpus in order, so its last sentence comes last."""
    last = next((d for d in reversed(corpus) if d.sentences), None)
    if last is None:
        return False
    try:
        held = collection.get(ids=[f"{last.doc_id}:{len(last.sentences) - 1}"], include=[])["ids"]
        return bool(held) and int(collection.count()) >= sentences
    except store_errors():
        return False
