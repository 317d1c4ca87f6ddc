"""NLI pre-training of the stance verifier's network, as a trial (the verifier ships only if it wins on held-out).

The network is the verifier's own (tools.models.verifier_net.CrossEncoderNet: MiniLM-L6, mean pooling, a 3-way head) and
its head is trained in the verifier's label order, so the head is kept when SciFact training starts from it
(``train_verifier --base OUT --init-head OUT/nli_head.pt``): entailment -> supports, contradiction -> contradicts,
neutral -> nei.

Data: the NLI mix (its README names every source and licence). Only rows whose licence allows shipping derived
weights in an Apache-2.0 project are read: ANLI and SICK (non-commercial) and NLI4CT (no licence stated) are left
out, and Check-COVID is never trained on because it shares CORD-19 evidence with a held-out set. A fixed,
label-stratified subset (every Evidence Inference row kept: the only scientific source left) is read for
``--epochs`` passes, each in its own seeded order with length-bucketed batches.

Resumable: a checkpoint is written every ``--checkpoint-every`` steps and at each epoch's end; running the same
command again continues from it. At the end, dev_mix accuracy per source is written to ``OUT/nli_dev.json``.

    python -m evals.training.nli_pretrain --out /tmp/nli_minilm --epochs 2 --subset 45000 --threads 2
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shlex
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import torch

from evals.experiments import REPO_ROOT
from evals.training.recipe import freeze_below
from tools.models.minilm import base_model_path
from tools.models.verifier_artifact import LABELS
from tools.models.verifier_net import build_base_net

NLI_TO_STANCE = {"entailment": "supports", "contradiction": "contradicts", "neutral": "nei"}
NOT_SHIPPABLE = ("anli", "sick", "nli4ct")  # non-commercial, or no licence stated
NEVER_TRAIN = ("check_covid",)  # shares CORD-19 evidence with held-out HealthVer / COVID-Fact
KEEP_ALL = ("evidence_inference",)


def read_rows(path: Path, skip: tuple[str, ...]) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [r for r in rows if not r["source"].startswith(skip)]


def subset(rows: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """Every row of the scientific sources, then the rest drawn per label in proportion to the pool."""
    rng = random.Random(seed)
    kept = [r for r in rows if r["source"].startswith(KEEP_ALL)]
    rest = [r for r in rows if not r["source"].startswith(KEEP_ALL)]
    if n <= len(kept) or n >= len(rows):
        return kept if n <= len(kept) else list(rows)
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rest:
        by_label[r["label"]].append(r)
    room = n - len(kept)
    for _, pool in sorted(by_label.items()):
        rng.shuffle(pool)
        kept += pool[: round(room * len(pool) / len(rest))]
    return kept


def epoch_batches(rows: list[dict[str, Any]], bs: int, seed: int) -> list[list[int]]:
    """Seeded order of length-bucketed batches (shuffled chunks of 100 batches sorted by length)."""
    rng = random.Random(seed)
    idx = list(range(len(rows)))
    rng.shuffle(idx)
    out: list[list[int]] = []
    for c in range(0, len(idx), bs * 100):
        part = sorted(idx[c : c + bs * 100], key=lambda i: len(rows[i]["premise"]) + len(rows[i]["hypothesis"]))
        out += [part[i : i + bs] for i in range(0, len(part), bs)]
    rng.shuffle(out)
    return out


def encode(tok: Any, rows: list[dict[str, Any]], max_len: int) -> dict[str, torch.Tensor]:
    """The verifier's input: [CLS] hypothesis (the claim's place) [SEP] premise (the evidence's place) [SEP]."""
    return dict(
        tok(
            [r["hypothesis"] for r in rows],
            [r["premise"] for r in rows],
            truncation="longest_first",
            max_length=max_len,
            padding=True,
            return_tensors="pt",
        )
    )


def target(rows: list[dict[str, Any]]) -> torch.Tensor:
    return torch.tensor([LABELS.index(NLI_TO_STANCE[r["label"]]) for r in rows])


def dev_accuracy(net: Any, tok: Any, rows: list[dict[str, Any]], max_len: int) -> dict[str, Any]:
    net.eval()
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    with torch.no_grad():
        for i in range(0, len(rows), 64):
            part = rows[i : i + 64]
            pred = net(**encode(tok, part, max_len)).argmax(-1).tolist()
            for r, p, y in zip(part, pred, target(part).tolist(), strict=True):
                per[r["source"]][0] += int(p == y)
                per[r["source"]][1] += 1
    net.train()
    right = sum(a for a, _ in per.values())
    total = sum(n for _, n in per.values())
    return {
        "accuracy": round(right / max(1, total), 4),
        "n": total,
        "per_source": {s: {"accuracy": round(a / n, 4), "n": n} for s, (a, n) in sorted(per.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=REPO_ROOT.parent / "shared" / "data" / "nli")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--subset", type=int, default=45000, help="training pairs read in each epoch")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--checkpoint-every", type=int, default=300)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    pool = read_rows(args.data_dir / "train_mix.jsonl.gz", NOT_SHIPPABLE + NEVER_TRAIN)
    train = subset(pool, args.subset, args.seed)
    dev = read_rows(args.data_dir / "dev_mix.jsonl.gz", ())
    print(f"train {len(train)} of {len(pool)} {dict(Counter(r['label'] for r in train))}; dev {len(dev)}", flush=True)

    net, tok = build_base_net(None)
    body, head = freeze_below(net, 6)  # every transformer layer learns; the embeddings stay frozen
    per_epoch = len(epoch_batches(train, args.batch_size, args.seed))
    total = per_epoch * args.epochs
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    warm = max(1, int(0.06 * total))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total - s) / total))
    ckpt = out / "checkpoint.pt"
    step, log, spent = 0, [], 0.0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step, log, spent = state["step"], state["log"], state["seconds"]
        print(f"resumed at step {step}/{total}", flush=True)

    def save() -> None:
        state = {"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}
        torch.save({**state, "step": step, "log": log, "seconds": spent + time.time() - t0}, ckpt)

    net.train()
    t0, lap, run = time.time(), time.time(), 0.0
    order: dict[int, list[list[int]]] = {}
    while step < total:
        epoch, pos = divmod(step, per_epoch)
        if epoch not in order:
            order = {epoch: epoch_batches(train, args.batch_size, args.seed + epoch)}
        batch = order[epoch][pos]
        rows = [train[i] for i in batch]
        loss = torch.nn.functional.cross_entropy(net(**encode(tok, rows, args.max_len)), target(rows))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(body + head, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        run = loss.item() if run == 0.0 else 0.98 * run + 0.02 * loss.item()
        if step % 100 == 0:
            rate, lap = 100 * args.batch_size / max(1e-6, time.time() - lap), time.time()
            print(f"step {step}/{total} epoch {epoch + 1} loss {run:.3f} ~{rate:.0f} pairs/s", flush=True)
        if step % per_epoch == 0:
            log.append({"epoch": step // per_epoch, "loss": round(run, 4), "dev_mix": dev_accuracy(net, tok, dev, 128)})
            print(json.dumps(log[-1]["dev_mix"]["accuracy"]), flush=True)
            save()
        elif step % args.checkpoint_every == 0:
            save()

    encoder: Any = net.encoder  # a transformers model
    encoder.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    torch.save(net.head.state_dict(), out / "nli_head.pt")
    base = base_model_path()
    for name in ("modules.json", "sentence_bert_config.json", "config_sentence_transformers.json"):
        if (base / name).exists():
            (out / name).write_bytes((base / name).read_bytes())
    result = {
        "command": shlex.join(["python", "-m", "evals.training.nli_pretrain", *sys.argv[1:]]),
        "sources_left_out": list(NOT_SHIPPABLE + NEVER_TRAIN),
        "train_pairs": len(train),
        "train_by_source": dict(Counter(r["source"] for r in train)),
        "steps": total,
        "seconds": round(spent + time.time() - t0, 1),
        "epochs": log,
    }
    (out / "nli_dev.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("train_pairs", "steps", "seconds")}), flush=True)


if __name__ == "__main__":
    main()
