"""Training and measuring the stance verifier: length-bucketed batches, the training loop with model selection on
the held-out claims, metrics, inference speed and the Markdown report."""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch

from evals.verifier.augment import claim_flip_examples, negation_examples, premise_flip_examples
from evals.verifier.data import (
    Claim,
    Doc,
    Example,
    load_climate_fever,
    load_pubmedqa,
    make_epoch_examples,
    sample_per_label,
)
from evals.verifier.joint import joint_augmentation, joint_epoch_examples
from tools.verifier import LABELS, CrossEncoderNet, Verifier, build_base_net


def metrics(y_true: Sequence[int], y_pred: Sequence[int]) -> dict[str, Any]:
    cm = np.zeros((3, 3), dtype=int)
    for t, p in zip(y_true, y_pred, strict=True):
        cm[t, p] += 1
    per: dict[str, dict[str, float]] = {}
    for k, name in enumerate(LABELS):
        tp = cm[k, k]
        prec = tp / cm[:, k].sum() if cm[:, k].sum() else 0.0
        rec = tp / cm[k].sum() if cm[k].sum() else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per[name] = {
            "precision": round(float(prec), 4),
            "recall": round(float(rec), 4),
            "f1": round(float(f1), 4),
            "support": int(cm[k].sum()),
        }
    return {
        "n": len(y_true),
        "macro_f1": round(float(np.mean([per[n]["f1"] for n in LABELS])), 4),
        "accuracy": round(float(np.trace(cm) / max(1, cm.sum())), 4),
        "per_class": per,
        "confusion_matrix": {"rows_true_cols_pred": list(LABELS), "matrix": cm.tolist()},
    }


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


class TrainingData(NamedTuple):
    """What one training run reads: the examples of each epoch and the class weights of the loss."""

    epoch_examples: Callable[[int], list[Example]]
    weights: torch.Tensor


def training_data(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    args: argparse.Namespace,
    tag: str,
) -> TrainingData:
    """The recipe's examples: SciFact pairs with resampled negatives, the contrast augmentations and the extra
    stance data the flags ask for; class weights ~ 1/sqrt(class frequency) of the first epoch."""
    if getattr(args, "joint", False):
        return joint_training_data(claims, corpus, bm25_top, args, tag)
    placed = args.premise_style == "placed"
    aug: list[Example] = []
    if args.negation_aug:
        aug, n_neg = negation_examples(claims, corpus, placed=placed)
        print(f"[{tag}] negation augmentation: {n_neg} claims negated, {len(aug)} pairs", flush=True)
    if args.premise_flips:
        flips, n_flip = premise_flip_examples(claims, corpus, placed=placed)
        aug += flips
        print(f"[{tag}] premise-side contrast: {n_flip} rationales with their direction reversed", flush=True)
    if getattr(args, "claim_flips", False):
        claim_flips, n_claims = claim_flip_examples(claims, corpus, placed=placed)
        aug += claim_flips
        print(f"[{tag}] claim-side direction flips: {n_claims} claims, {len(claim_flips)} pairs", flush=True)

    extra: list[Example] = []
    if args.climate_fever:
        extra = load_climate_fever(args.climate_fever)
        print(f"[{tag}] CLIMATE-FEVER pool {len(extra)} pairs {dict(Counter(e.label for e in extra))}", flush=True)

    pq: list[Example] = []
    if args.pubmedqa:
        pq = load_pubmedqa(args.pubmedqa)
        print(f"[{tag}] PubMedQA pool {len(pq)} pairs {dict(Counter(e.label for e in pq))}", flush=True)

    def epoch_examples(ep: int) -> list[Example]:
        ep_rng = random.Random(args.seed + ep - 1)
        cf = sample_per_label(extra, args.cf_per_epoch, ep_rng) if extra else []
        pqa = sample_per_label(pq, args.pq_per_epoch, ep_rng) if pq else []
        return make_epoch_examples(claims, corpus, bm25_top, ep_rng, placed=placed) + aug + cf + pqa

    return with_weights(epoch_examples, tag)


def with_weights(epoch_examples: Callable[[int], list[Example]], tag: str) -> TrainingData:
    """Class weights sqrt(N / (3 n_c)) from the first epoch's examples."""
    counts = Counter(e.label for e in epoch_examples(1))
    total = sum(counts.values())
    weights = torch.tensor([math.sqrt(total / (3 * counts[k])) for k in range(3)], dtype=torch.float)
    print(f"[{tag}] examples/epoch~{total} {dict(counts)} class weights {weights.tolist()}", flush=True)
    return TrainingData(epoch_examples, weights)


def joint_training_data(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    args: argparse.Namespace,
    tag: str,
) -> TrainingData:
    """Abstract-level examples (evals/verifier/joint.py); the contrast flags add their abstract-level pairs, and the
    extra stance data (sentences, not abstracts) is left out."""
    aug = joint_augmentation(claims, corpus) if args.negation_aug or args.premise_flips else []
    print(f"[{tag}] joint reading: {len(aug)} contrast pairs; extra stance data not used", flush=True)

    def epoch_examples(ep: int) -> list[Example]:
        return joint_epoch_examples(claims, corpus, bm25_top, random.Random(args.seed + ep - 1)) + aug

    return with_weights(epoch_examples, tag)


def freeze_below(net: CrossEncoderNet, train_layers: int) -> tuple[list[torch.nn.Parameter], list[torch.nn.Parameter]]:
    """Only the top ``train_layers`` transformer layers and the head learn; returns (body, head) parameters."""
    prefix = "encoder.encoder.layer."
    layer_ids = {int(n[len(prefix) :].split(".")[0]) for n, _ in net.named_parameters() if n.startswith(prefix)}
    n_layers = max(layer_ids) + 1
    for n, p in net.named_parameters():
        trainable = n.startswith("head.")
        if n.startswith(prefix):
            trainable = int(n[len(prefix) :].split(".")[0]) >= n_layers - train_layers
        p.requires_grad_(trainable)
    head = [p for n, p in net.named_parameters() if p.requires_grad and n.startswith("head.")]
    body = [p for n, p in net.named_parameters() if p.requires_grad and not n.startswith("head.")]
    return body, head


def optimiser(
    body: list[torch.nn.Parameter], head: list[torch.nn.Parameter], args: argparse.Namespace, total_steps: int
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LambdaLR]:
    """AdamW (encoder and head learning rates apart) with 6 % linear warm-up and linear decay."""
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    warm = max(1, int(0.06 * total_steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total_steps - s) / max(1, total_steps - warm))
    )
    return opt, sched


class Selection:
    """Model selection on the held-out claims: keeps the trainable weights of the best epoch."""

    def __init__(self, net: CrossEncoderNet) -> None:
        self.net, self.best_f1, self.best_epoch = net, -1.0, 0
        self.best_state: dict[str, torch.Tensor] | None = None

    def record(self, epoch: int, m: dict[str, Any], entry: dict[str, Any]) -> None:
        entry["heldout_macro_f1"] = m["macro_f1"]
        entry["heldout_accuracy"] = m["accuracy"]
        entry["heldout_per_class_f1"] = {k: v["f1"] for k, v in m["per_class"].items()}
        if m["macro_f1"] > self.best_f1:
            self.best_f1, self.best_epoch = m["macro_f1"], epoch
            self.best_state = {n: p.detach().clone() for n, p in self.net.named_parameters() if p.requires_grad}

    def restore(self, epochs: int) -> int:
        """Puts the best epoch's weights back; returns that epoch (``epochs`` when nothing was selected)."""
        if self.best_state is None:
            return epochs
        with torch.no_grad():
            params = dict(self.net.named_parameters())
            for n, t in self.best_state.items():
                params[n].copy_(t)
        return self.best_epoch


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
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    net, tok = build_base_net(args.base)
    base_state = {n: p.detach().clone() for n, p in net.named_parameters()}
    body, head = freeze_below(net, args.train_layers)
    data = training_data(claims, corpus, bm25_top, args, tag)
    first = data.epoch_examples(1)
    total_steps = math.ceil(len(first) / args.batch_size) * epochs
    opt, sched = optimiser(body, head, args, total_steps)
    loss_fn = torch.nn.CrossEntropyLoss(weight=data.weights)
    selection = Selection(net)
    net.train()
    t0 = time.time()
    for ep in range(1, epochs + 1):
        ex = first if ep == 1 else data.epoch_examples(ep + 1)
        bl = batches(ex, tok, args.batch_size, args.max_len, rng)
        run_loss = 0.0
        for i, b in enumerate(bl):
            logits = net(b["input_ids"], b["attention_mask"], b.get("token_type_ids"))
            loss = loss_fn(logits, b["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_([*body, *head], 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            run_loss += loss.item()
            if (i + 1) % 50 == 0:
                print(
                    f"[{tag}] ep{ep} step {i + 1}/{len(bl)} loss {run_loss / (i + 1):.4f} {time.time() - t0:.0f}s",
                    flush=True,
                )
        entry: dict[str, Any] = {
            "phase": tag,
            "epoch": ep,
            "train_loss": round(run_loss / len(bl), 4),
            "elapsed_s": round(time.time() - t0, 1),
        }
        if heldout is not None:
            selection.record(ep, evaluate(net, tok, heldout[0], heldout[1]), entry)
        log.append(entry)
        print(f"[{tag}] {entry}", flush=True)
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
