"""Repacks a verifier artifact's LoRA factors as int8 with one fp16 scale per row (tools.models.verifier_artifact
.pack_factor), half their fp16 size, so that a 12-layer rank-16 artifact ships in under 3 MB:

    python -m evals.training.pack_lora8 SRC_DIR DST_DIR

The config is copied with its ``delta_dtype`` updated; every other tensor is kept as stored. It prints the largest
change of any rebuilt weight delta, to be read beside the held-out labels of the repacked artifact."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from tools.models.verifier_artifact import CONFIG_FILE, DELTA_FILE, pack_factor, read_delta


def repack(src: Path, dst: Path) -> float:
    from safetensors.numpy import load_file, save_file

    raw = load_file(str(src / DELTA_FILE))
    out: dict[str, np.ndarray] = {}
    for key, t in raw.items():
        kind, name = key.split(".", 1)
        if kind in ("lora_a", "lora_b") and t.dtype != np.int8:
            out[key], out[f"{kind}_scale.{name}"] = pack_factor(t.astype(np.float32))
        else:
            out[key] = t
    dst.mkdir(parents=True, exist_ok=True)
    save_file(out, str(dst / DELTA_FILE))
    config = json.loads((src / CONFIG_FILE).read_text())
    dtype = str(config.get("delta_dtype", ""))
    config["delta_dtype"] = dtype.replace("fp16 LoRA factors", "int8 LoRA factors (fp16 row scales)")
    (dst / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    before, after = read_delta(src / DELTA_FILE), read_delta(dst / DELTA_FILE)
    return max(float(np.abs(before[k] - after[k]).max()) for k in before)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("src", type=Path)
    p.add_argument("dst", type=Path)
    args = p.parse_args(argv)
    change = repack(args.src, args.dst)
    size = (args.dst / DELTA_FILE).stat().st_size
    print(f"{args.dst / DELTA_FILE}: {size / 1e6:.2f} MB; largest change of a weight delta {change:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
