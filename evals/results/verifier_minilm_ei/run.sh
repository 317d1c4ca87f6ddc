#!/usr/bin/env bash
# issue 54: MiniLM v5's recipe with the NLI mix and Evidence Inference's trial findings added (about an hour on 2 cores)
cd "$(dirname "$0")/../../.."  # the repository root
exec .venv/bin/python -m evals.training.train_verifier --epochs 4 --seed 13 --negation-aug --premise-flips \
  --max-len 192 --climate-fever ../shared/data/climate_fever/climate-fever.jsonl \
  --nli-mix ../shared/data/nli/train_mix.jsonl.gz --threads 2 --out /tmp/minilm_ei/artifact \
  --results-dir /tmp/minilm_ei/results
