#!/usr/bin/env bash
# Training a verifier on a lent GPU machine, from the repository root there. Here, `python -m
# evals.training.device_bundle pack --base DIR --out STAGING` writes the base's parts and bundle.tar.xz; before each
# call, .gpu (ignored; named in the call's carry) holds that call's one part, and for the last call bundle.tar.xz too.
# A call carries at most 64 MiB, the tracked tree included, so the base goes over in parts, one call each, into a
# folder that stays while the machine is warm (30 s between calls):
#   stash                 keeps this call's .gpu/base_part_N in /tmp/parts
#   unpack                rebuilds the base and the data in /tmp/b (after the last part arrived)
#   train NAME ARGS...    evals.training.train_verifier on the GPU with the rebuilt base and data; the artifact,
#                         the results and the log come back as $OUT/NAME.tgz
# The project's needs that the machine lacks travel as cp312 wheels in .whl (ignored; carried): pydantic,
# pydantic-core, pydantic-settings, annotated-types, typing-inspection, typing-extensions and python-dotenv at the
# versions of constraints.txt (`pip download --no-deps --only-binary=:all: --python-version 3.12 --platform
# manylinux2014_x86_64 -d .whl ...`).
set -u
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false MODEL_BACKEND=torch
verb=${1:?stash, unpack or train}; shift
case $verb in
  stash)
    mkdir -p /tmp/parts && cp .gpu/base_part_* /tmp/parts/ && ls -l /tmp/parts ;;
  unpack)
    python3 -m evals.training.device_bundle unpack --parts /tmp/parts --bundle .gpu/bundle.tar.xz --to /tmp/b ;;
  train)
    name=${1:?a name for the run}; shift
    if [ -d .whl ] && [ ! -d /tmp/site ]; then
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
    fi
    [ -d /tmp/site ] && export PYTHONPATH=/tmp/site
    mkdir -p "/tmp/runs/$name"
    python3 -m evals.training.train_verifier --base /tmp/b/base --data-dir /tmp/b/data/scifact --device cuda \
      --climate-fever /tmp/b/data/climate_fever/climate-fever.jsonl --nli-mix /tmp/b/data/nli/train_mix.jsonl.gz \
      --out "/tmp/runs/$name/artifact" --results-dir "/tmp/runs/$name/results" "$@" > "/tmp/runs/$name/log.txt" 2>&1
    echo "exit $?" >> "/tmp/runs/$name/log.txt"
    tail -3 "/tmp/runs/$name/log.txt"
    tar czf "${OUT:-/tmp}/$name.tgz" -C /tmp/runs "$name" ;;
  *) echo "unknown verb $verb" >&2; exit 2 ;;
esac
