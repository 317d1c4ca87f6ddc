#!/usr/bin/env bash
# The first (provisional) verdict with each claim verifier, ABBA: BEFORE and AFTER are two checkouts of the repository
# (MiniLM v5 as the claim verifier, and the mpnet verifier with its calibration), both run with this checkout's venv;
# each run's report goes to OUT/<n>-<side>/bench_ask.md.
set -u
BEFORE=${BEFORE:?a checkout with MiniLM v5} AFTER=${AFTER:?a checkout with the mpnet verifier} OUT=${OUT:?a folder}
PY=$(cd "$(dirname "$0")/../../.." && pwd)/.venv/bin/python
i=0
for side in before after after before; do
  i=$((i + 1)); dir=$OUT/$i-$side
  repo=$([ "$side" = before ] && echo "$BEFORE" || echo "$AFTER")
  (cd "$repo" && "$PY" -m evals.bench.ask --claims 10 --skip-llm --out "$dir" > "$dir.log" 2>&1)
  echo "$side: $(grep 'scripted model' "$dir/bench_ask.md" | head -1)"
done
