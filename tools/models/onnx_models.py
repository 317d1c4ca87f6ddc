"""ONNX Runtime copies of the two CPU models: the MiniLM sentence embedder and the stance verifier network.

Each is built from its weights by tools.models.onnx_bert (numpy and onnx, no torch) on first use (or ahead of time by
``export_all``) into ``DATA_DIR/cache/onnx`` (``ONNX_CACHE_DIR`` overrides), optionally int8-quantised with
``onnxruntime.quantization.quantize_dynamic``. A file's name carries the sha256 of the weights it came from, so
changed weights (a retrained verifier delta) export again instead of reusing a stale graph; files are written to a
temporary name and renamed, so a reader never sees half a file.

Running them is tools.models.onnx_runtime's job, which needs only numpy, onnxruntime and tokenizers: neither the export
nor the run time imports torch or transformers.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from tools.config import SettingsGroup
from tools.files import sha256_file
from tools.models.minilm import base_model_path
from tools.models.onnx_export import export_embedder, export_verifier, tmp_for
from tools.models.verifier_artifact import (
    ARTIFACT_DIR,
    CONFIG_FILE,
    DELTA_FILE,
    READER_ARTIFACT_DIR,
    SENTENCE_ARTIFACT_DIR,
    base_dir,
    check_base,
    read_config,
)

Backend = Literal["onnx", "torch"]
Precision = Literal["fp32", "int8"]
# Bumped when the exported graph computes something else for the same weights (inputs, outputs, pooling, quantisation
# recipe), so cached files of an older recipe are not reused. Graphs built by tools.models.onnx_bert compute what the
# earlier torch.onnx.export graphs computed (largest difference 1.3e-7 in an embedding, 3.9e-7 in a verifier logit),
# so those stay valid, and so do the indexes embedded with them.
EXPORT_RECIPE = 2


class ModelRuntimeSettings(SettingsGroup):
    """How the embedder and the verifier run (environment variables of the same names, upper case)."""

    # the application's data folder (the same variable and default as the stores' data_dir)
    data_dir: Path = Path.home() / ".local" / "share" / "claimtrace"
    # where exported ONNX files are kept; DATA_DIR/cache/onnx when unset
    onnx_cache_dir: Path | None = None
    # onnx: ONNX Runtime (no torch at run time); torch: the PyTorch models (training, comparisons)
    model_backend: Backend = "onnx"
    # int8 embeddings hold retrieval Recall@5 within 0.005 of fp32 at about 3x the speed of an index build.
    embedder_precision: Precision = "int8"
    # The verifiers run in fp32: they read each pair as trained, with the same label on every x86-64 CPU. int8 is
    # about 2.2x faster but changes about 4 % of dev labels and sways pairs near a decision boundary
    # (evals/results/onnx_quality.md, evals/results/cpu_portability.md); a check reads a few dozen pairs.
    verifier_precision: Precision = "fp32"
    # the sentence-embedding store (tools.index.embed_cache); DATA_DIR/cache/embeddings.sqlite when unset
    embed_cache_path: Path | None = None
    # rows run in parallel by the ONNX backends (and PyTorch threads); 0 = min(2, CPU count)
    model_threads: int = Field(0, ge=0)

    @field_validator("model_backend")
    @classmethod
    def torch_installed(cls, backend: Backend) -> Backend:
        import importlib.util

        if backend == "torch" and importlib.util.find_spec("torch") is None:
            raise ValueError("torch needs PyTorch, which is not installed (pip install -e '.[train]')")
        return backend

    @property
    def cache_dir(self) -> Path:
        return self.onnx_cache_dir or self.data_dir / "cache" / "onnx"

    def threads(self) -> int:
        return self.model_threads or max(1, min(2, os.cpu_count() or 1))


_active: ModelRuntimeSettings | None = None


def use_runtime(settings: ModelRuntimeSettings | None) -> None:
    """The runtime settings the models read from now on: the application passes its Settings' ``models`` group
    (agent.service.use_settings), so a value set there (a preset, ``with_values``) is the one the models run with;
    None goes back to the environment."""
    global _active
    _active = settings


def runtime_settings() -> ModelRuntimeSettings:
    """The settings the application passed (``use_runtime``); the environment's when it passed none (a tool used on
    its own, as training does)."""
    return _active if _active is not None else ModelRuntimeSettings()


# --- source digests ------------------------------------------------------------------------------------------------

_digest_lock = threading.Lock()


def file_digest(path: Path, cache_dir: Path) -> str:
    """sha256 of ``path``, remembered in ``cache_dir/digests.json`` by (path, size, mtime) so that start-up does not
    re-read 90 MB of weights each time."""
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    memo = cache_dir / "digests.json"
    with _digest_lock:
        try:
            known: dict[str, str] = json.loads(memo.read_text())
        except (OSError, ValueError):
            known = {}
        if key in known:
            return known[key]
        digest = sha256_file(path)
        known[key] = digest
        cache_dir.mkdir(parents=True, exist_ok=True)
        _write_atomic_text(memo, json.dumps(known, indent=1))
    return digest


def _write_atomic_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)




# --- export --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OnnxModel:
    """One exported graph: where it is and what it came from."""

    kind: Literal["embedder", "verifier"]
    precision: Precision
    path: Path
    source_digest: str


def _combined(*digests: str) -> str:
    return hashlib.sha256(("|".join(digests) + f"|recipe{EXPORT_RECIPE}").encode()).hexdigest()[:16]


def embedder_model(precision: Precision, cache_dir: Path | None = None) -> OnnxModel:
    """The embedder graph of ``precision``, exported first if it is not in the cache."""
    cache = cache_dir or runtime_settings().cache_dir
    digest = _combined(file_digest(base_model_path() / "model.safetensors", cache))
    fp32 = cache / f"minilm-embedder-{digest}-fp32.onnx"
    if not fp32.is_file():
        export_embedder(fp32)
    model = OnnxModel("embedder", precision, fp32, digest)
    return _quantised(model) if precision == "int8" else model


def verifier_model(artifact_dir: Path, precision: Precision, cache_dir: Path | None = None) -> OnnxModel:
    """The verifier network of the artifact in ``artifact_dir`` (base weights + its delta), exported first if it is
    not in the cache. The key covers the base weights, the delta and the config that rebuilds the network."""
    cache = cache_dir or runtime_settings().cache_dir
    config = read_config(artifact_dir)
    base = base_dir(config)
    base_digest = file_digest(base / "model.safetensors", cache)
    check_base(config, base, base_digest)
    digest = _combined(
        base_digest,
        file_digest(artifact_dir / DELTA_FILE, cache),
        file_digest(artifact_dir / CONFIG_FILE, cache),
    )
    fp32 = cache / f"verifier-{digest}-fp32.onnx"
    if not fp32.is_file():
        export_verifier(artifact_dir, fp32)
    model = OnnxModel("verifier", precision, fp32, digest)
    return _quantised(model) if precision == "int8" else model


def export_all(cache_dir: Path | None = None, artifact_dirs: Sequence[Path] | None = None) -> list[Path]:
    """Export (if not cached yet) every graph the run time loads with the current settings (the embedder, the claim
    verifier, the abstract reader where it is installed, and the sentence verifier); the set-up step calls this so
    that the first question does not pay for it. Returns the files."""
    s = runtime_settings()
    cache = cache_dir or s.cache_dir
    reader = (READER_ARTIFACT_DIR,) if (READER_ARTIFACT_DIR / CONFIG_FILE).is_file() else ()
    verifiers = artifact_dirs or (ARTIFACT_DIR, *reader, SENTENCE_ARTIFACT_DIR)
    return [
        embedder_model(s.embedder_precision, cache).path,
        *(verifier_model(d, s.verifier_precision, cache).path for d in verifiers),
    ]


def _quantised(fp32: OnnxModel) -> OnnxModel:
    """The int8 copy of an fp32 graph (``quantise``), made once next to it."""
    path = fp32.path.with_name(fp32.path.name.replace("-fp32.onnx", "-int8.onnx"))
    if not path.is_file():
        tmp = tmp_for(path)
        try:
            quantise(fp32.path, tmp)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return OnnxModel(fp32.kind, "int8", path, fp32.source_digest)


def quantise(src: Path, dst: Path, *, reduce_range: bool = True) -> None:
    """int8 dynamic quantisation of the MatMul weights, per output channel (activations are quantised per call at
    run time). The embedding tables stay fp32: quantising them costs accuracy and saves no time.

    Weights use 7 bits (``reduce_range``) so that the run time's integer products are exact on every x86-64 CPU:
    ONNX Runtime multiplies uint8 activations by int8 weights with VPMADDUBSW on AVX2 CPUs, which adds pairs of
    products into saturating int16 (255 x 127 x 2 overflows it, 255 x 64 x 2 does not), and with VNNI or AMX
    instructions that add into int32 elsewhere. With 8-bit weights the same graph gave other verifier labels on an
    AVX2 CPU than on a VNNI one; with 7-bit weights the integer products agree and only float rounding differs,
    which moved the verifier's logits by at most 0.06 on an emulated AVX2 CPU (evals/results/cpu_portability.md).
    ``reduce_range=False`` (8-bit weights) is there for that comparison."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser advises a pre-processing pass on the root logger
    try:
        quantize_dynamic(
            src,
            dst,
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=reduce_range,
            op_types_to_quantize=["MatMul"],
        )
    finally:
        root.setLevel(level)
