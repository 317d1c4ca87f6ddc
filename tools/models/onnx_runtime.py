"""Running the exported CPU models (tools.models.onnx_models) under ONNX Runtime: sessions, the fast tokenizer and a
runner that takes one row per call. Needs only numpy, onnxruntime and tokenizers."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from tools.models.onnx_models import runtime_settings


def session(path: Path, threads: int = 1) -> Any:
    """An ONNX Runtime CPU session: all graph optimisations, ``threads`` intra-op threads that sleep rather than
    spin when idle (spinning threads steal the cores other work needs on a small shared machine)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])


def load_tokenizer(model_dir: Path, max_len: int) -> Any:
    """The fast (Rust) tokenizer of a model folder, truncating like the transformers tokenizer does (longest first
    for pairs) and not padding: batches are padded to their own longest row by ``pad_batch``."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len, strategy="longest_first")
    return tok


class RowRunner:
    """Runs a graph one row (text or pair) per call, rows spread over ``threads`` worker threads sharing one
    single-threaded session (ONNX Runtime sessions are thread-safe and release the GIL while they run).

    One row per call means no padding and a result that never depends on the other rows of a batch: int8 graphs
    quantise their activations per call, so a batched row would move with its neighbours. On a 2-core CPU this
    was faster than padded batches of 8 or 32 under one 2-thread session, and two rows in flight on 1-thread
    sessions were faster than one row on a 2-thread session.
    """

    def __init__(self, path: Path, output: str, threads: int | None = None) -> None:
        self.threads = threads or runtime_settings().threads()
        self._session = session(path, 1)
        self._output = output
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _one(self, encoding: Any) -> np.ndarray:
        out: np.ndarray = self._session.run([self._output], pad_batch([encoding]))[0][0]
        return out

    def run(self, encodings: Sequence[Any]) -> np.ndarray:
        """Stacked outputs of tokenizers ``Encoding`` rows, in their order."""
        with self._lock:
            if len(encodings) < 2 or self.threads < 2:
                return np.stack([self._one(e) for e in encodings])
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="onnx-rows")
            return np.stack(list(self._pool.map(self._one, encodings, chunksize=16)))


def pad_batch(encodings: Sequence[Any], pad_id: int = 0) -> dict[str, np.ndarray]:
    """int64 input_ids / attention_mask / token_type_ids of tokenizers ``Encoding`` objects, right-padded to the
    longest of them."""
    width = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    types = np.zeros((len(encodings), width), dtype=np.int64)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        ids[row, :n] = e.ids
        mask[row, :n] = 1
        types[row, :n] = e.type_ids
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
