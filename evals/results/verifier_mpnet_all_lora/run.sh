#!/usr/bin/env bash
# issue 54: the mpnet-base cross-encoder, rank-16 LoRA on all 12 layers (no cached layers), bf16 autocast on an AMX
# CPU, 2 epochs. BASE is the unpacked all-mpnet-base-v2 of the PyPI parts (model.safetensors sha256 78c0197b...).
cd "$(dirname "$0")/../../.."  # the repository root
BASE=${BASE:?the folder of all-mpnet-base-v2} OUT=${OUT:?where the artifact goes}
exec .venv/bin/python -m evals.training.train_verifier --base "$BASE" \
  --train-layers 12 --lora-rank 16 --lr 5e-4 --batch-size 16 --epochs 2 --seed 13 --negation-aug --premise-flips \
  --max-len 160 --climate-fever ../shared/data/climate_fever/climate-fever.jsonl \
  --nli-mix ../shared/data/nli/train_mix.jsonl.gz --threads 2 --bf16 \
  --out "$OUT" --results-dir evals/results/verifier_mpnet_all_lora
