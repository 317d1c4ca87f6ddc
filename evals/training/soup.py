"""Weight averaging of verifier artifacts ("model soup", Wortsman et al., "Model soups: averaging weights of
multiple fine-tuned models improves accuracy without increasing inference time"): verifiers fine-tuned from the
same base weights with the same recipe but different data are averaged tensor by tensor into one artifact, which
costs no more to run than one of them.

    python -m evals.training.soup OUT_DIR ARTIFACT_DIR ARTIFACT_DIR [...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def soup(out: Path, artifacts: list[Path]) -> Path:
    import numpy as np

    from tools.models.verifier_artifact import CONFIG_FILE, DELTA_DTYPE, DELTA_FILE, read_delta, write_delta

    tensors = [read_delta(a / DELTA_FILE) for a in artifacts]
    configs = [json.loads((a / CONFIG_FILE).read_text()) for a in artifacts]
    if any(set(t) != set(tensors[0]) for t in tensors) or len({c.get("premise") for c in configs}) != 1:
        raise SystemExit("artifacts differ in their tensors or premise style: they cannot be averaged")
    mean = {k: np.mean([t[k] for t in tensors], axis=0) for k in tensors[0]}
    out.mkdir(parents=True, exist_ok=True)
    write_delta(out / DELTA_FILE, mean)
    config = {k: v for k, v in configs[0].items() if k not in ("temperature", "calibration")}
    config["delta_dtype"] = DELTA_DTYPE
    config["averaged_from"] = [
        {k: c.get(k) for k in ("epochs", "negation_aug", "premise_flips", "climate_fever_per_epoch")} for c in configs
    ]
    (out / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", type=Path)
    p.add_argument("artifacts", type=Path, nargs="+")
    args = p.parse_args(argv)
    print(soup(args.out, args.artifacts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
