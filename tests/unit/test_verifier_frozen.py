"""Training over cached lower layers (evals/training/frozen.py): the cached path computes what the whole network
computes, and only the top layers and the head are left to learn."""

from __future__ import annotations

import torch

from evals.training.frozen import LowerCache, top_forward
from evals.training.layers import freeze_below
from tools.models.verifier_net import build_base_net

PAIRS = [
    ("Aspirin reduces fever.", "Aspirin trial [results; sentence 2 of 2]: Aspirin significantly reduced fever."),
    ("Statins reduce the risk of stroke.", "Statins and stroke: " + "Patients were followed for five years. " * 6),
    ("x", "y"),
]


def test_cached_lower_layers_give_the_full_network_logits() -> None:
    torch.manual_seed(0)
    net, tok = build_base_net()
    net.eval()
    enc = tok([h for h, _ in PAIRS], [p for _, p in PAIRS], truncation="longest_first", max_length=64,
              padding=True, return_tensors="pt")  # fmt: skip
    frozen = len(net.encoder.encoder.layer) - 2
    cache = LowerCache(net, tok, frozen, max_len=64)
    cache.fill(PAIRS)
    with torch.no_grad():
        full = net(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids"))
        h, mask = cache.batch(PAIRS)
        cached = top_forward(net, h, mask, frozen)
    # the states are stored unpadded: a short pair's length is its own, not the batch's
    assert cache.states[PAIRS[2]].shape[0] < cache.states[PAIRS[1]].shape[0]
    assert torch.allclose(full, cached, atol=1e-3), (full, cached)
    # the whole network is still there after caching (the lower layers were only borrowed)
    assert len(net.encoder.encoder.layer) == frozen + 2


def test_only_the_top_layers_and_the_head_learn() -> None:
    net, _ = build_base_net()
    body, head = freeze_below(net, 2)
    trainable = {n for n, p in net.named_parameters() if p.requires_grad}
    assert trainable and all(
        n.startswith(("encoder.encoder.layer.4.", "encoder.encoder.layer.5.", "head.")) for n in trainable
    )
    assert {n for n in trainable if n.startswith("head.")} == {"head.weight", "head.bias"}
    assert len(head) == 2 and len(body) == len(trainable) - 2
