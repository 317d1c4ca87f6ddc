"""The ONNX graphs' export from their weights (tools.models.onnx_bert: numpy and onnx, no torch): the embedder from
the packaged MiniLM, a verifier from its base and its artifact's deltas; each written whole or not at all.
tools.models.onnx_models decides when a graph is exported and where it is cached."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from tools.models.minilm import base_model_path
from tools.models.verifier_artifact import DELTA_FILE, VerifierArtifactError, base_dir, read_config, read_delta


def tmp_for(path: Path) -> Path:
    """A temporary name beside ``path``, of this process and thread, for writing it whole or not at all."""
    return path.with_name(f".{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.onnx")


def save_model(model: Any, path: Path) -> None:
    """Write an ONNX model to ``path`` through a temporary file, so that a reader never sees half of it."""
    import onnx

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = tmp_for(path)
    try:
        onnx.save(model, str(tmp))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def base_config(base: Path) -> dict[str, Any]:
    config: dict[str, Any] = json.loads((base / "config.json").read_text())
    return config


def export_embedder(path: Path) -> None:
    """BertModel + masked mean pooling + L2 normalisation in one graph: (input_ids, attention_mask,
    token_type_ids) -> embeddings [batch, 384], as sentence-transformers computes them."""
    from tools.models.onnx_bert import base_weights, bert_graph

    base = base_model_path()
    save_model(bert_graph(base_weights(base / "model.safetensors"), base_config(base), "normalize"), path)


def verifier_weights(artifact_dir: Path) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The fine-tuned encoder's weights (the base's plus the artifact's deltas, or its full tensors) by BertModel
    name, and the head's (weight, bias); VerifierArtifactError on a tensor the network does not have."""
    from tools.models.onnx_bert import base_weights

    weights = base_weights(base_dir(read_config(artifact_dir)) / "model.safetensors")
    head: dict[str, np.ndarray] = {}
    for key, t in read_delta(artifact_dir / DELTA_FILE).items():
        kind, name = key.split(".", 1)
        if name in ("head.weight", "head.bias") and kind == "full":
            head[name] = t
            continue
        if name.startswith("sentence_head.") and kind == "full":  # rationale scores: the torch network gives them
            continue
        inner = name.removeprefix("encoder.")
        if inner == name or inner not in weights:
            raise VerifierArtifactError(f"unexpected tensor in verifier artifact: {key}")
        weights[inner] = weights[inner] + t if kind == "delta" else t
    if set(head) != {"head.weight", "head.bias"}:
        raise VerifierArtifactError(f"{artifact_dir / DELTA_FILE}: the head must be stored in full")
    return weights, (head["head.weight"], head["head.bias"])


def export_verifier(artifact_dir: Path, path: Path) -> None:
    """The fine-tuned cross-encoder: (input_ids, attention_mask, token_type_ids) -> logits [batch, 3]."""
    from tools.models.onnx_bert import bert_graph

    weights, head = verifier_weights(artifact_dir)
    config = base_config(base_dir(read_config(artifact_dir)))
    save_model(bert_graph(weights, config, "linear", head, output="logits"), path)
