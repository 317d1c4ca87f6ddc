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

Spans = tuple[tuple[int, int, bool], ...] | None


def batches(
    ex: list[Example], tok: Any, bs: int, max_len: int, rng: random.Random, rationale: bool = False
) -> list[dict[str, Any]]:
    """Length-bucketed batches (shuffled chunks sorted by length) to limit padding; with ``rationale``, each batch
    whose examples mark their sentences also carries the sentence of each token and the sentences' targets
    (``sentence_targets``)."""
    items = [(e.hyp, rng.choice(e.variants), e.label, e.sentences) for e in ex]
    rng.shuffle(items)
    chunk = bs * 20
    groups: list[list[tuple[str, str, int, Spans]]] = []
    for s in range(0, len(items), chunk):
        part = sorted(items[s : s + chunk], key=lambda t: len(t[0]) + len(t[1]))
        groups.extend(part[i : i + bs] for i in range(0, len(part), bs))
    rng.shuffle(groups)
    out = []
    for g in groups:
        marked = rationale and any(spans for *_, spans in g)
        enc = tok(
            [h for h, *_ in g],
            [p for _, p, *_ in g],
            truncation="longest_first",
            max_length=max_len,
            padding=True,
            return_tensors="pt",
            return_offsets_mapping=marked,
        )
        enc["labels"] = torch.tensor([lab for _, _, lab, _ in g])
        if marked:
            enc["sentence_of"], enc["sentence_targets"] = sentence_targets(enc, [spans for *_, spans in g])
            del enc["offset_mapping"]
        out.append(enc)
    return out


def sentence_targets(enc: Any, spans: list[Spans]) -> tuple[torch.Tensor, torch.Tensor]:
    """(the premise sentence of each token, -1 for none [batch, tokens]; each sentence's target, 1 for a rationale
    sentence, 0 for another, -1 where there is no sentence or no token of it survived truncation [batch, sentences])."""
    offsets = enc["offset_mapping"].tolist()
    width = max((len(s) for s in spans if s), default=0)
    sentence_of = torch.full(enc["input_ids"].shape, -1, dtype=torch.long)
    targets = torch.full((len(spans), max(width, 1)), -1.0)
    for row, marks in enumerate(spans):
        if not marks:
            continue
        for t, (seq, (a, b)) in enumerate(zip(enc.sequence_ids(row), offsets[row], strict=True)):
            if seq != 1 or b <= a:
                continue
            k = next((k for k, (start, end, _) in enumerate(marks) if start <= a < end), -1)
            if k >= 0:
                sentence_of[row, t] = k
                targets[row, k] = float(marks[k][2])
    return sentence_of, targets


def batch_loss(
    net: CrossEncoderNet, b: dict[str, torch.Tensor], loss_fn: torch.nn.Module, rationale_weight: float, half: bool
) -> torch.Tensor:
    """The label's cross-entropy, plus ``rationale_weight`` times the mean binary cross-entropy of the sentence
    head over the batch's marked sentences (MultiVerS's rationale loss) when the batch carries them."""
    device = b["input_ids"].device
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=half):
        if "sentence_of" in b:
            targets = b["sentence_targets"]
            logits, scores = net.forward_sentences(
                b["input_ids"], b["attention_mask"], b.get("token_type_ids"), b["sentence_of"], targets.shape[1]
            )
        else:
            logits = net(b["input_ids"], b["attention_mask"], b.get("token_type_ids"))
    loss = loss_fn(logits.float(), b["labels"])
    if "sentence_of" in b:
        seen = targets >= 0
        if seen.any():
            bce = torch.nn.functional.binary_cross_entropy_with_logits(scores.float()[seen], targets[seen])
            loss = loss + rationale_weight * bce
    return loss


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
        weight = getattr(args, "rationale_weight", 0.0)
        bl = batches(ex, tok, args.batch_size, args.max_len, ep_rng, rationale=weight > 0)
        skip = done_steps if ep == first_epoch else 0
        run_loss, steps = (resumed_loss, skip) if skip else (0.0, 0)
        for b in bl[skip:]:
            b = {k: v.to(device) for k, v in b.items()}
            loss = batch_loss(net, b, loss_fn, weight, half)
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
    if res.get("dev_rationale"):
        r = res["dev_rationale"]
        lines[-3:-3] = [
            f"Rationale: of {r['evidence_abstracts']} dev evidence abstracts, a whole gold rationale set is the "
            f"sentence head's top sentence for {r.get('whole_set_in_top_1')} and among its top 2 for "
            f"{r['whole_set_in_top_2']}; its top sentence is a rationale sentence for {r['top_is_rationale']}.",
            "",
        ]
    lines += [f"- {json.dumps(e)}" for e in res["epoch_log"]]
    path.write_text("\n".join(lines) + "\n")
