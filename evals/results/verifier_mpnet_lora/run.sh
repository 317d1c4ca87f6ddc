#!/usr/bin/env bash
# issue 54: the mpnet-base cross-encoder, LoRA on the top 4 layers over cached lower layers; resumable (run again)
cd "$(dirname "$0")/../../.."  # the repository root
exec .venv/bin/python -m evals.training.train_verifier --base /work/models/all-mpnet-base-v2 --cache-lower \
  --train-layers 4 --lora-rank 16 --lr 5e-4 --epochs 4 --seed 13 --negation-aug --premise-flips --max-len 192 \
  --climate-fever ../shared/data/climate_fever/climate-fever.jsonl --nli-mix ../shared/data/nli/train_mix.jsonl.gz \
  --threads 2 --state /work/train_state/mpnet_lora --checkpoint-minutes 10 \
  --out /work/train_state/mpnet_lora/artifact --results-dir /work/train_state/mpnet_lora/results
