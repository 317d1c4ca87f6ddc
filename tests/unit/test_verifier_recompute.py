"""Gradient checkpointing for the verifier trainer (``--recompute``, evals.training.layers.recompute_layers): the
learning layers keep far fewer tensors for the backward pass, and the gradients, dropout included, are the plain
run's."""

from __future__ import annotations

import argparse

import torch

from evals.training.recipe import start


def forward_and_backward(recompute: bool) -> tuple[int, dict[str, torch.Tensor], torch.Tensor]:
    """Bytes saved for the backward pass by one training-mode forward of the packaged MiniLM with LoRA on its top 6
    layers, the gradients of that forward's sum, and the logits of an inference (no gradients) with the same net."""
    args = argparse.Namespace(seed=3, base=None, init_head=None, train_layers=6, lora_rank=4, recompute=recompute)
    began = start(args)
    net, tok = began.net, began.tok
    batch = tok(
        ["Aspirin reduces fever.", "Statins reduce the risk of stroke."],
        ["Aspirin significantly reduced fever in 200 adults.", "Statins did not change the risk of stroke."],
        return_tensors="pt",
        padding=True,
    )
    saved = [0]

    def pack(t: torch.Tensor) -> torch.Tensor:
        saved[0] += t.numel() * t.element_size()
        return t

    net.train()
    torch.manual_seed(5)  # the same dropout masks in both runs
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        logits = net(batch["input_ids"], batch["attention_mask"], batch.get("token_type_ids"))
    logits.sum().backward()
    grads = {n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None}
    net.eval()
    with torch.no_grad():
        inferred = net(batch["input_ids"], batch["attention_mask"], batch.get("token_type_ids"))
    return saved[0], grads, inferred


def test_recomputed_layers_keep_far_less_for_the_backward_pass_and_give_the_same_gradients() -> None:
    plain_bytes, plain_grads, plain_logits = forward_and_backward(recompute=False)
    bytes_, grads, logits = forward_and_backward(recompute=True)
    assert bytes_ < plain_bytes / 10
    assert grads.keys() == plain_grads.keys() and any("lora_A" in n for n in grads)
    for name, g in plain_grads.items():
        assert torch.allclose(grads[name], g, atol=1e-6), name
    assert torch.allclose(logits, plain_logits, atol=1e-6)
