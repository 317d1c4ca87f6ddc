#!/usr/bin/env bash
# issue 54: the measurements of ../verifier_mpnet_all_lora/README.md for the three-epoch artifact, one after another on
# an otherwise idle machine (the speed figures need one): the held-out replay read again by it and by MiniLM, the
# gate fitted on each, the claim-level table out of fold, ONNX fp32 against int8, and speed beside MiniLM.
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the repository root
ART=${ART:?the artifact folder} WORK=${WORK:?a scratch folder for the rescored replays}
HERE=evals/results/verifier_mpnet_all_lora_e3
mkdir -p "$WORK" "$HERE/gate"
for v in minilm=tools/models/verifier mpnet_e3="$ART"; do
  name=${v%%=*} dir=${v#*=}
  [ -s "$WORK/replay_$name.jsonl" ] || .venv/bin/python -m evals.training.rescore_replay --verifier "$dir" \
    --out "$WORK/replay_$name.jsonl"
  for vote in "" --direction-reads-verifier; do
    .venv/bin/python -m evals.training.judge_calibration --gate-asks-opposite --gate-combines max $vote \
      --replay "$WORK/replay_$name.jsonl" --out "$HERE/gate/calibration_${name}${vote:+_verifier_vote}.json" \
      --results "$WORK/trials_${name}${vote:+_verifier_vote}"
  done
done
.venv/bin/python evals/results/verifier_mpnet_all_lora/gate/judges_by_verifier.py minilm="$WORK/replay_minilm.jsonl" \
  mpnet_e3="$WORK/replay_mpnet_e3.jsonl" > "$HERE/gate/judges_by_verifier.json"
.venv/bin/python -m evals.studies.onnx_quality --verifier "$ART" --out "$HERE"
.venv/bin/python -m evals.bench.index --verifiers-only --verifier mpnet_e3="$ART" --out "$HERE"
