"""Training and measuring the stance verifier: length-bucketed batches, the training loop with model selection on
the held-out claims, inference speed and the Markdown report (the label metrics: evals/training/label_metrics.py)."""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from evals.training.data import Claim, Doc, Example
from evals.training.label_metrics import metrics
from evals.training.recipe import Selection, optimiser, start, training_data, update
from evals.training.run_state import RunState
from tools.models.verifier import LABELS, Verifier
from tools.models.verifier_net import CrossEncoderNet


def batches(ex: list[Example], tok: Any, bs: int, max_len: int, rng: random.Random) -> list[dict[str, Any]]:
    """Length-bucketed batches (shuffled chunks sorted by length) to limit padding."""
    items = [(e.hyp, rng.choice(e.variants), e.label) for e in ex]
    rng.shuffle(items)
    chunk = bs * 20
    groups: list[list[tuple[str, str, int]]] = []
    for s in range(0, len(items), chunk):
        part = sorted(items[s : s + chunk], key=lambda t: len(t[0]) + len(t[1]))
        groups.extend(part[i : i + bs] for i in range(0, len(part), bs))
    rng.shuffle(groups)
    out = []
    for g in groups:
        enc = tok(
            [h for h, _, _ in g],
            [p for _, p, _ in g],
            truncation="longest_first",
            max_length=max_len,
            padding=True,
            return_tensors="pt",
        )
        enc["labels"] = torch.tensor([lab for _, _, lab in g])
        out.append(enc)
    return out


def evaluate(net: CrossEncoderNet, tok: Any, pairs: list[tuple[str, str]], labels: list[int]) -> dict[str, Any]:
    v = Verifier(net=net, tokenizer=tok)
    probs = v.predict_proba(pairs, batch_size=32)
    net.train()
    return metrics(labels, [int(np.argmax(p)) for p in probs])



def train(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    args: argparse.Namespace,
    epochs: int,
    heldout: tuple[list[tuple[str, str]], list[int]] | None,
    log: list[dict[str, Any]],
    tag: str,
) -> tuple[CrossEncoderNet, Any, dict[str, torch.Tensor], int]:
    rng, net, tok, base_state, body, head = start(args)
    device = torch.device(getattr(args, "device", "cpu"))
    net.to(device)
    data = training_data(claims, corpus, bm25_top, args, tag)
    first = data.epoch_examples(1)
    total_steps = math.ceil(len(first) / args.batch_size) * epochs
    opt, sched = optimiser(body, head, args, total_steps)
    loss_fn = torch.nn.CrossEntropyLoss(weight=data.weights.to(device))
    selection = Selection(net)
    half = device.type == "cuda" or args.bf16  # bf16 autocast: always on a GPU, on request on the CPU
    state, first_epoch, done_steps, resumed_loss = RunState.resume(args, tag, net, opt, sched, selection, log)
    net.train()
    t0 = time.time()
    for ep in range(first_epoch, epochs + 1):
        ex = first if ep == 1 else data.epoch_examples(ep + 1)
        # A resumable run draws each epoch's variants and batch order from a generator seeded by the epoch alone, so
        # that a resumed epoch sees the batches it saw before and skips those it has done.
        ep_rng = random.Random(f"{args.seed}:{tag}:{ep}") if state is not None else rng
        bl = batches(ex, tok, args.batch_size, args.max_len, ep_rng)
        skip = done_steps if ep == first_epoch else 0
        run_loss, steps = (resumed_loss, skip) if skip else (0.0, 0)
        for b in bl[skip:]:
            b = {k: v.to(device) for k, v in b.items()}
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=half):
                logits = net(b["input_ids"], b["attention_mask"], b.get("token_type_ids"))
            loss = loss_fn(logits.float(), b["labels"])
            update(loss, [*body, *head], opt, sched)
            run_loss, steps = run_loss + loss.item(), steps + 1
            if steps % 50 == 0:
                print(
                    f"[{tag}] ep{ep} step {steps}/{len(bl)} loss {run_loss / steps:.4f} {time.time() - t0:.0f}s",
                    flush=True,
                )
            if state is not None:
                state.after_step(net, opt, sched, selection, log, ep, steps, run_loss, tag)
        entry: dict[str, Any] = {
            "phase": tag,
            "epoch": ep,
            "train_loss": round(run_loss / max(1, steps), 4),
            "elapsed_s": round(time.time() - t0, 1),
        }
        if heldout is not None:
            selection.record(ep, evaluate(net, tok, heldout[0], heldout[1]), entry)
        log.append(entry)
        print(f"[{tag}] {entry}", flush=True)
        if state is not None:
            state.save(net, opt, sched, selection, log, ep + 1, 0, 0.0)
    return net, tok, base_state, selection.restore(epochs)


def speed(v: Verifier, pairs: list[tuple[str, str]]) -> dict[str, float]:
    sample = pairs[:256]
    v.predict(sample[:32])
    t = time.time()
    v.predict(sample, batch_size=32)
    dt = time.time() - t
    return {
        "pairs": len(sample),
        "seconds": round(dt, 2),
        "pairs_per_s": round(len(sample) / dt, 1),
        "torch_threads": torch.get_num_threads(),
    }


def write_md(path: Path, res: dict[str, Any]) -> None:
    d = res["dev"]
    lines = [
        "# Stance verifier — SciFact dev",
        "",
        f"Command: `{res['command']}`",
        "",
        f"Training wall time: {res['training_wall_time_s']:.0f} s ({res['args']['threads']} torch thread(s)). "
        f"Artifact: {res['artifact_bytes'] / 1e6:.1f} MB. Selected epochs: {res['selected_epochs']}.",
        "",
        "Eval set: " + res["dev_eval_set"],
        "",
        f"**macro-F1 {d['macro_f1']:.3f}**, accuracy {d['accuracy']:.3f}, n={d['n']}",
        "",
        "| class | P | R | F1 | support |",
        "|---|---:|---:|---:|---:|",
    ]
    for k in LABELS:
        p = d["per_class"][k]
        lines.append(f"| {k} | {p['precision']:.3f} | {p['recall']:.3f} | {p['f1']:.3f} | {p['support']} |")
    lines += ["", "Confusion (rows = true, cols = predicted: supports, contradicts, nei):", ""]
    lines += ["| true \\ pred | " + " | ".join(LABELS) + " |", "|---|---:|---:|---:|"]
    for k, row in zip(LABELS, d["confusion_matrix"]["matrix"], strict=True):
        lines.append(f"| {k} | " + " | ".join(str(x) for x in row) + " |")
    ex = res["dev_nei_claims"]
    lines += [
        "",
        f"Extra: NEI dev claims vs 1 sentence of their cited abstract: {ex['n']} pairs, predicted nei "
        f"{ex['per_class']['nei']['recall']:.3f} (confusion row {ex['confusion_matrix']['matrix'][2]}).",
        "",
        f"Inference: {res['inference_speed']['pairs_per_s']} pairs/s "
        f"({res['inference_speed']['torch_threads']} thread, batch 32, dev pairs).",
        "",
        "Epoch log: ",
        "",
    ]
    lines += [f"- {json.dumps(e)}" for e in res["epoch_log"]]
    path.write_text("\n".join(lines) + "\n")
