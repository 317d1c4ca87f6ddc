"""Which of a verifier network's weights learn, and how: the top layers unfrozen, LoRA adapters on their linear
maps, adapters started from a shipped artifact, and the learning layers recomputed in the backward pass; used by
evals/training/recipe.py's start."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from tools.models.verifier_artifact import DELTA_FILE, factor
from tools.models.verifier_net import HEADS, CrossEncoderNet


def freeze_below(net: CrossEncoderNet, train_layers: int) -> tuple[list[torch.nn.Parameter], list[torch.nn.Parameter]]:
    """Only the top ``train_layers`` transformer layers and the head learn; returns (body, head) parameters."""
    prefix = "encoder.encoder.layer."
    layer_ids = {int(n[len(prefix) :].split(".")[0]) for n, _ in net.named_parameters() if n.startswith(prefix)}
    n_layers = max(layer_ids) + 1
    for n, p in net.named_parameters():
        trainable = n.startswith(HEADS)
        if n.startswith(prefix):
            trainable = int(n[len(prefix) :].split(".")[0]) >= n_layers - train_layers
        p.requires_grad_(trainable)
    head = [p for n, p in net.named_parameters() if p.requires_grad and n.startswith(HEADS)]
    body = [p for n, p in net.named_parameters() if p.requires_grad and not n.startswith(HEADS)]
    return body, head



def top_layers(net: CrossEncoderNet, train_layers: int) -> list[tuple[int, torch.nn.Module]]:
    """The top ``train_layers`` transformer layers, each with its index in the encoder."""
    layers: Any = net.encoder.encoder.layer  # type: ignore[union-attr]
    return list(enumerate(layers))[len(layers) - train_layers :]


def top_linears(net: CrossEncoderNet, train_layers: int) -> list[str]:
    """The names of the linear maps inside the top ``train_layers`` transformer layers."""
    return [
        f"encoder.encoder.layer.{k}.{name}"
        for k, layer in top_layers(net, train_layers)
        for name, m in layer.named_modules()
        if isinstance(m, torch.nn.Linear)
    ]


def recompute_layers(net: CrossEncoderNet, train_layers: int) -> None:
    """Gradient checkpointing on the top ``train_layers`` layers: while gradients are on, each layer keeps only its
    input for the backward pass and runs its forward again there, one more forward pass of compute for a fraction of
    the activations' memory. Transformers' own switch does not cover MPNet, so each layer's ``forward`` is wrapped in
    place and the parameter names, which the artifact stores, stay the same. Dropout draws the same masks in the
    second forward (the random state is kept), so the gradients are those of the plain run."""
    from torch.utils.checkpoint import checkpoint

    for _, layer in top_layers(net, train_layers):

        def forward(*a: Any, _inner: Callable[..., Any] = layer.forward, **kw: Any) -> Any:
            if not torch.is_grad_enabled():
                return _inner(*a, **kw)
            return checkpoint(_inner, *a, use_reentrant=False, **kw)

        layer.forward = forward


def add_lora(net: CrossEncoderNet, train_layers: int, rank: int) -> list[torch.nn.Parameter]:
    """LoRA adapters (peft) on every linear map of the top ``train_layers`` layers, whose own weights then stay
    frozen: what learns is a rank-``rank`` update per map, small enough to ship beside a 110M base (save_artifact
    stores each map's two factors). Returns the adapters' parameters."""
    from peft import LoraConfig, inject_adapter_in_model

    targets = top_linears(net, train_layers)
    config = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.05, target_modules=targets)
    inject_adapter_in_model(config, net)
    for n, p in net.named_parameters():
        p.requires_grad_(n.startswith(HEADS) or "lora_" in n)
    return [p for n, p in net.named_parameters() if "lora_" in n]


def init_from_artifact(net: CrossEncoderNet, artifact_dir: Path) -> None:
    """Starts the LoRA adapters and the head from a shipped verifier artifact of the same base and rank (its stored
    factors, the scaling unfolded from the second), so that a new reading starts from a trained one."""
    from safetensors.numpy import load_file

    raw = load_file(str(artifact_dir / DELTA_FILE))
    modules = dict(net.named_modules())
    params = dict(net.named_parameters())
    with torch.no_grad():
        for key, t in raw.items():
            kind, name = key.split(".", 1)
            if kind == "full" and name not in params:
                raise ValueError(f"{artifact_dir}: {key} has no place in this network (a sentence head needs "
                                 "--rationale-weight)")
            if kind == "full":
                params[name].copy_(torch.from_numpy(t.astype("float32")))
            elif kind == "lora_a":
                m: Any = modules[name.removesuffix(".weight")]
                (adapter,) = m.lora_A.keys()
                m.lora_A[adapter].weight.copy_(torch.from_numpy(factor(raw, "lora_a", name)))
                b = factor(raw, "lora_b", name) / m.scaling[adapter]
                m.lora_B[adapter].weight.copy_(torch.from_numpy(b))
            elif kind not in ("lora_b", "lora_a_scale", "lora_b_scale"):
                raise ValueError(f"{artifact_dir}: {key} cannot start a LoRA run (only LoRA factors and the head)")
