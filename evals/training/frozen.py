"""Training only the top layers of a larger base over cached lower-layer states (``--cache-lower``).

A 110M-parameter base such as all-mpnet-base-v2 costs about 8x MiniLM-L6 per pair on a 2-core CPU, and full
fine-tuning would take most of a day. With its lower layers frozen, their output for a (claim, premise) pair never
changes: each distinct pair goes through them once (in eval mode, no gradient), the states are kept in memory in
fp16, and every epoch trains the top ``--train-layers`` layers and the head on them. A pair seen again in a later
epoch (every rationale, every augmentation) costs only the top layers.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from typing import Any

import torch

from evals.training.data import Claim, Doc
from evals.training.label_metrics import metrics
from evals.training.recipe import Selection, optimiser, start, training_data, update
from evals.training.run_state import STOPPED, RunState
from tools.models.verifier_net import CrossEncoderNet


class LowerCache:
    """The output of the frozen lower layers per distinct (hypothesis, premise) pair, unpadded, in fp16."""

    def __init__(self, net: CrossEncoderNet, tok: Any, frozen_layers: int, max_len: int) -> None:
        self.net, self.tok, self.frozen, self.max_len = net, tok, frozen_layers, max_len
        self.states: dict[tuple[str, str], torch.Tensor] = {}

    def fill(self, pairs: list[tuple[str, str]], batch_size: int = 32, stop: Callable[[], bool] = lambda: False
             ) -> bool:
        """Runs the lower layers on the pairs not cached yet, in length-sorted batches; returns False when ``stop``
        said to stop before all were cached."""
        todo = sorted(set(pairs) - set(self.states), key=lambda p: len(p[0]) + len(p[1]))
        encoder: Any = self.net.encoder
        layers = encoder.encoder.layer
        was_training = self.net.training
        self.net.eval()
        encoder.encoder.layer = layers[: self.frozen]  # the model's own forward, stopped below the trained layers
        try:
            with torch.inference_mode():
                for start in range(0, len(todo), batch_size):
                    if stop():
                        return False
                    chunk = todo[start : start + batch_size]
                    enc = self.tok(
                        [h for h, _ in chunk],
                        [p for _, p in chunk],
                        truncation="longest_first",
                        max_length=self.max_len,
                        padding=True,
                        return_tensors="pt",
                    )
                    out = encoder(**enc).last_hidden_state
                    for k, pair in enumerate(chunk):
                        n = int(enc["attention_mask"][k].sum())
                        self.states[pair] = out[k, :n].half().clone()
        finally:
            encoder.encoder.layer = layers
            self.net.train(was_training)
        return True

    def batch(self, pairs: list[tuple[str, str]]) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded states (batch, length, hidden) in fp32 and their attention mask."""
        seqs = [self.states[p] for p in pairs]
        width = max(s.shape[0] for s in seqs)
        h = torch.zeros(len(seqs), width, seqs[0].shape[1])
        mask = torch.zeros(len(seqs), width, dtype=torch.long)
        for k, s in enumerate(seqs):
            h[k, : s.shape[0]] = s.float()
            mask[k, : s.shape[0]] = 1
        return h, mask


def length_batches(
    items: list[tuple[tuple[str, str], int]], cache: LowerCache, batch_size: int, rng: random.Random
) -> list[list[tuple[tuple[str, str], int]]]:
    """Shuffled batches of similar length (shuffled chunks of 20 batches, sorted by length within), as
    evals.training.train.batches makes them, so little of each batch is padding."""
    items = list(items)
    rng.shuffle(items)
    chunk = batch_size * 20
    groups: list[list[tuple[tuple[str, str], int]]] = []
    for s in range(0, len(items), chunk):
        part = sorted(items[s : s + chunk], key=lambda it: cache.states[it[0]].shape[0])
        groups.extend(part[i : i + batch_size] for i in range(0, len(part), batch_size))
    rng.shuffle(groups)
    return groups


def top_forward(net: CrossEncoderNet, h: torch.Tensor, mask: torch.Tensor, frozen_layers: int) -> torch.Tensor:
    """Logits from the states after the frozen layers: the remaining layers, then pooling and head."""
    from transformers.masking_utils import create_bidirectional_mask

    encoder: Any = net.encoder
    attn = create_bidirectional_mask(config=encoder.config, inputs_embeds=h, attention_mask=mask)
    extra = {}
    if hasattr(encoder.encoder, "compute_position_bias"):  # MPNet: relative position bias shared by all layers
        extra["position_bias"] = encoder.encoder.compute_position_bias(h)
    for layer in encoder.encoder.layer[frozen_layers:]:
        out = layer(h, attn, **extra)
        h = out[0] if isinstance(out, tuple) else out
    return net.classify(h, mask)


def evaluate_cached(
    net: CrossEncoderNet, cache: LowerCache, pairs: list[tuple[str, str]], labels: list[int]
) -> dict[str, Any]:
    net.eval()
    preds: list[int] = []
    with torch.inference_mode():
        for start in range(0, len(pairs), 32):
            h, mask = cache.batch(pairs[start : start + 32])
            preds += top_forward(net, h, mask, cache.frozen).argmax(-1).tolist()
    net.train()
    return metrics(labels, preds)


def train_cached(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    args: argparse.Namespace,
    epochs: int,
    heldout: tuple[list[tuple[str, str]], list[int]] | None,
    log: list[dict[str, Any]],
    tag: str,
) -> tuple[CrossEncoderNet, Any, dict[str, torch.Tensor], int]:
    """The recipe of evals.training.train.train with the lower layers frozen and cached; with ``--state DIR`` a run
    that can be stopped and started again (evals.training.run_state)."""
    _, net, tok, base_state, body, head = start(args)
    encoder: Any = net.encoder
    frozen = len(encoder.encoder.layer) - args.train_layers
    cache = LowerCache(net, tok, frozen, args.max_len)
    data = training_data(claims, corpus, bm25_top, args, tag)
    epoch_sets = [data.epoch_examples(1 if ep == 1 else ep + 1) for ep in range(1, epochs + 1)]
    t0 = time.time()
    total_steps = math.ceil(len(epoch_sets[0]) / args.batch_size) * epochs
    opt, sched = optimiser(body, head, args, total_steps)
    loss_fn = torch.nn.CrossEntropyLoss(weight=data.weights)
    selection = Selection(net)
    state, first_epoch, done_steps, resumed_loss = RunState.resume(args, tag, net, opt, sched, selection, log)
    net.train()
    for ep in range(first_epoch, epochs + 1):
        ep_rng = random.Random(f"{args.seed}:{tag}:{ep}")  # the epoch's variants and batches, the same on a resume
        items = [((e.hyp, ep_rng.choice(e.variants)), e.label) for e in epoch_sets[ep - 1]]
        pairs = [p for p, _ in items] + (heldout[0] if heldout is not None else [])
        if state is not None:
            state.load_cache(cache.states, ep)
            filled = cache.fill(pairs, stop=lambda: state.stop_asked)
            state.save_cache(cache.states, pairs, ep)  # what was cached, all of it or up to the stop
            if not filled:
                print(f"[{tag}] stopped while caching epoch {ep}; saved in {state.folder}", flush=True)
                raise SystemExit(STOPPED)
        else:
            cache.fill(pairs)
        print(f"[{tag}] ep{ep} cache {len(cache.states)} pairs {time.time() - t0:.0f}s", flush=True)
        skip = done_steps if ep == first_epoch else 0
        run_loss, steps = (resumed_loss, skip) if skip else (0.0, 0)
        for chunk in length_batches(items, cache, args.batch_size, ep_rng)[skip:]:
            h, mask = cache.batch([p for p, _ in chunk])
            logits = top_forward(net, h, mask, frozen)
            loss = loss_fn(logits, torch.tensor([lab for _, lab in chunk]))
            update(loss, [*body, *head], opt, sched)
            run_loss, steps = run_loss + loss.item(), steps + 1
            if steps % 50 == 0:
                print(f"[{tag}] ep{ep} step {steps} loss {run_loss / steps:.4f} {time.time() - t0:.0f}s", flush=True)
            if state is not None:
                state.after_step(net, opt, sched, selection, log, ep, steps, run_loss, tag)
        entry: dict[str, Any] = {
            "phase": tag,
            "epoch": ep,
            "train_loss": round(run_loss / max(1, steps), 4),
            "elapsed_s": round(time.time() - t0, 1),
            "cached_pairs": len(cache.states),
        }
        if heldout is not None:
            selection.record(ep, evaluate_cached(net, cache, heldout[0], heldout[1]), entry)
        log.append(entry)
        print(f"[{tag}] {entry}", flush=True)
        if state is not None:
            state.save(net, opt, sched, selection, log, ep + 1, 0, 0.0)
    return net, tok, base_state, selection.restore(epochs)
