"""A content-addressed store of sentence embeddings (SQLite, ``DATA_DIR/cache/embeddings.sqlite`` by default,
``EMBED_CACHE_PATH`` overrides), so that an index rebuild, a corpus update or another data folder pointed at the
same store embeds only the texts it has not embedded before.

A vector's key is the sha1 of the embedder's ``cache_key`` (model, backend and precision, and the digest of the
weights) and the text: vectors of different model variants never mix.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tools.models.embedder import DIM, Embedder
from tools.models.onnx_models import runtime_settings


def default_path() -> Path:
    s = runtime_settings()
    return s.embed_cache_path or s.data_dir / "cache" / "embeddings.sqlite"


class EmbeddingCache:
    """Vectors by (embedder cache key, text); safe to share between threads and processes (SQLite WAL)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID")
        self._lock = threading.Lock()

    @staticmethod
    def key(cache_key: str, text: str) -> bytes:
        return hashlib.sha1(f"{cache_key}\0{text}".encode()).digest()

    def get(self, keys: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):  # SQLite's bound-parameter limit
                part = list(keys[start : start + 500])
                marks = ",".join("?" * len(part))
                for k, blob in self._db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part):
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (dim,):
                        found[bytes(k)] = vec
        return found

    def put(self, keys: Sequence[bytes], vecs: np.ndarray) -> None:
        rows = [(k, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for k, v in zip(keys, vecs, strict=True)]
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedEmbedder(Embedder):
    """An embedder whose vectors are looked up in an ``EmbeddingCache`` first; only the misses are embedded (and
    stored). ``hits`` and ``misses`` count texts since creation."""

    def __init__(self, embedder: Embedder, cache: EmbeddingCache) -> None:
        self.embedder, self.cache = embedder, cache
        self.name, self.variant, self.cache_key = embedder.name, embedder.variant, embedder.cache_key
        self.hits = self.misses = 0

    def encode(self, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
        keys = [self.cache.key(self.cache_key, t) for t in texts]
        found = self.cache.get(keys, DIM)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        todo = [i for i, k in enumerate(keys) if k not in found]
        for i, k in enumerate(keys):
            if k in found:
                out[i] = found[k]
        if todo:
            vecs = self.embedder.encode([texts[i] for i in todo], batch_size=batch_size)
            out[todo] = vecs
            self.cache.put([keys[i] for i in todo], vecs)
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        return out
