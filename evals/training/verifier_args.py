"""The command line of evals.training.train_verifier: the recipe's data, its trial levers and the long run's state."""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.experiments import REPO_ROOT


def verifier_parser(description: str | None) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=REPO_ROOT.parent / "shared" / "data" / "scifact")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "tools" / "models" / "verifier")
    ap.add_argument("--epochs", type=int, default=5, help="max epochs; the best on the held-out slice is kept")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=192)
    ap.add_argument("--train-layers", type=int, default=6, help="fine-tune the top N transformer layers")
    ap.add_argument(
        "--base",
        type=Path,
        default=None,
        help="a sentence-transformers folder to start from instead of the packaged all-MiniLM-L6-v2",
    )
    ap.add_argument(
        "--init-head",
        type=Path,
        default=None,
        help="start the head from these weights (an NLI head in the verifier's label order) instead of random",
    )
    ap.add_argument(
        "--joint",
        action="store_true",
        help="joint abstract-level reading: the claim against the whole abstract (evals/training/joint.py)",
    )
    ap.add_argument(
        "--joint-negatives",
        type=int,
        default=1,
        help="with --joint: hard negatives per claim, drawn from the abstracts BM25 ranks first that it does not cite",
    )
    ap.add_argument(
        "--rationale-weight",
        type=float,
        default=0.0,
        help="with --joint: train a sentence head on SciFact's rationale sentences too, its loss weighted this much "
        "against the label's (MultiVerS weighs them 15 : 1); 0 trains the label alone",
    )
    ap.add_argument(
        "--init-from",
        type=Path,
        default=None,
        help="with --lora-rank: start the adapters and the head from this verifier artifact (same base and rank)",
    )
    ap.add_argument(
        "--cache-lower",
        action="store_true",
        help="run the frozen lower layers once per distinct pair and train the top layers on their cached output",
    )
    ap.add_argument("--heldout-frac", type=float, default=0.15)
    ap.add_argument("--retrain", action="store_true", help="retrain on all of TRAIN for the selected epochs")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--device",
        default="cpu",
        help="where the uncached trainer runs (cpu, or cuda on a machine with a GPU: bf16 autocast there); the "
        "artifact and its dev evaluation are always made on the CPU",
    )
    ap.add_argument(
        "--bf16",
        action="store_true",
        help="the uncached trainer's forward passes in bf16 autocast on the CPU too: about 1.7x faster on a CPU with "
        "AMX (Intel Sapphire Rapids and later); time a few steps first elsewhere; always on with --device cuda",
    )
    ap.add_argument(
        "--negation-aug",
        action="store_true",
        help="add (negated claim, rationale, flipped label) pairs for train claims a simple rule can negate",
    )
    ap.add_argument(
        "--premise-flips",
        action="store_true",
        help="add (claim, rationale with its direction reversed, flipped label) pairs for directional claims",
    )
    ap.add_argument(
        "--claim-flips",
        action="store_true",
        help="add (claim with its direction word reversed, rationale, flipped label) pairs",
    )
    ap.add_argument(
        "--self-pairs",
        action="store_true",
        help="add (rationale sentence, its own premise, supports) and (that sentence negated, contradicts) pairs",
    )
    ap.add_argument(
        "--premise-style",
        choices=("placed", "plain"),
        default="placed",
        help="placed: the run-time premise (section, position, sentence before); plain: 'title: text' (v3)",
    )
    ap.add_argument(
        "--climate-fever",
        type=Path,
        default=None,
        help="CLIMATE-FEVER jsonl: add its claim/evidence pairs as extra stance examples",
    )
    ap.add_argument(
        "--cf-per-epoch",
        type=int,
        nargs=3,
        default=[700, 500, 500],
        metavar=("SUPPORTS", "REFUTES", "NEI"),
        help="CLIMATE-FEVER pairs drawn per epoch for each label (resampled every epoch)",
    )
    ap.add_argument(
        "--pubmedqa",
        type=Path,
        default=None,
        help="PubMedQA ori_pqal.json: add (question, conclusion) pairs answered yes/no as extra stance examples",
    )
    ap.add_argument(
        "--pq-per-epoch",
        type=int,
        nargs=2,
        default=[400, 300],
        metavar=("YES", "NO"),
        help="PubMedQA pairs drawn per epoch for yes (supports) and no (contradicts)",
    )
    ap.add_argument(
        "--nli-mix",
        type=Path,
        default=None,
        help="../shared/data/nli/train_mix.jsonl.gz: add NLI pairs whose licence allows shipped weights "
        "(evals.training.data.NOT_FOR_WEIGHTS are left out), Evidence Inference apart",
    )
    ap.add_argument(
        "--ei-per-epoch",
        type=int,
        nargs=3,
        default=[1500, 1500, 0],
        metavar=("SUPPORTS", "CONTRADICTS", "NEI"),
        help="Evidence Inference pairs (null and directional trial findings) drawn per epoch for each label",
    )
    ap.add_argument(
        "--nli-per-epoch",
        type=int,
        nargs=3,
        default=[1000, 1000, 1000],
        metavar=("SUPPORTS", "CONTRADICTS", "NEI"),
        help="the rest of the NLI mix: pairs drawn per epoch for each label",
    )
    ap.add_argument(
        "--lora-rank",
        type=int,
        default=0,
        help="train rank-N LoRA adapters (peft) on the top --train-layers layers instead of the layers themselves",
    )
    ap.add_argument(
        "--recompute",
        action="store_true",
        help="gradient checkpointing: the learning layers run their forward again in the backward pass instead of "
        "keeping their activations; slower, in far less memory (evals/results/reader/recompute.md)",
    )
    ap.add_argument(
        "--state",
        type=Path,
        default=None,
        help="a folder that makes the run resumable (evals/training/run_state.py): it saves a checkpoint every "
        "--checkpoint-minutes, after each epoch and on SIGTERM; start the same command again to go on after it stopped",
    )
    ap.add_argument("--checkpoint-minutes", type=float, default=10.0)
    ap.add_argument(
        "--results-dir",
        type=Path,
        default=REPO_ROOT / "evals" / "results",
        help="where verifier_dev.json/.md are written (use a scratch dir for trial runs)",
    )
    return ap
