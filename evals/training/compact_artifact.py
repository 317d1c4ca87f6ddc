"""Rewrite a verifier artifact's delta file in the compact format of tools.models.verifier_artifact (4-bit matrices in
groups with fp16 scales, fp16 vectors and head), in place; the config's ``delta_dtype`` names the format. An
artifact already compact is rewritten unchanged.

    python -m evals.training.compact_artifact tools/models/verifier tools/models/sentence_verifier

Measure the rewritten artifact beside a copy of the old one with ``python -m evals.training.verifier_trials``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tools.models.verifier_artifact import CONFIG_FILE, DELTA_DTYPE, DELTA_FILE, read_config, read_delta, write_delta


def compact(artifact_dir: Path) -> tuple[int, int]:
    """(bytes before, bytes after) of the artifact's delta file."""
    config = read_config(artifact_dir)
    path = artifact_dir / DELTA_FILE
    before = path.stat().st_size
    tensors = read_delta(path)
    tmp = path.with_name(f".{path.name}.tmp")
    write_delta(tmp, tensors)
    tmp.replace(path)
    config["delta_dtype"] = DELTA_DTYPE
    (artifact_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    return before, path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("artifacts", nargs="+", type=Path)
    args = p.parse_args(argv)
    for d in args.artifacts:
        before, after = compact(d)
        print(f"{d}: {before:,} -> {after:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
