"""Do the CPU models give the same numbers on every x86-64 CPU?

ONNX Runtime picks its integer kernels from what the CPU reports: VNNI or AMX instructions add uint8 x int8 products
into int32, AVX2 adds pairs of them into saturating int16 first (VPMADDUBSW). This study runs each graph of the
verifier and the embedder natively and again under ``qemu-x86_64 -cpu MODEL`` (Debian's qemu-user), whose CPUID
offers only that model's instruction sets (EPYC-Milan: AVX2, no AVX-512, no VNNI), so ONNX Runtime takes the kernels
a real CPU of that model takes; qemu computes floating point exactly as the hardware does. Graphs: fp32, int8 with
7-bit weights (the run time's, tools.models.onnx_models.quantise) and int8 with 8-bit weights (the recipe before it).
Inputs: the contrast probes (evals/training/probes.py) and every ``--every``-th SciFact dev pair (placed premises),
and the first ``--sentences`` dev claims for the embedder.

    python -m evals.studies.cpu_portability --cpu EPYC-Milan --out evals/results

Reported per graph: the largest raw-logit and calibrated-probability difference between the two CPUs, the rows
that are bit-identical, and the verifier labels that change; for the embedder the smallest cosine between a
sentence's two embeddings.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import REPO_ROOT, cpu_kind, experiment_header, write_experiment
from evals.training.calibration import softmax

DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "scifact"
RECIPES = {"fp32": None, "int8 7-bit weights (run time)": True, "int8 8-bit weights (before)": False}


def graphs(tmp: Path) -> dict[str, dict[str, str]]:
    """{"verifier" | "embedder": {recipe: path}}, the 8-bit copies quantised into ``tmp``."""
    from tools.models.onnx_models import embedder_model, quantise, verifier_model
    from tools.models.verifier_artifact import ARTIFACT_DIR

    out: dict[str, dict[str, str]] = {}
    for kind, fp32, int8 in (
        ("verifier", verifier_model(ARTIFACT_DIR, "fp32"), verifier_model(ARTIFACT_DIR, "int8")),
        ("embedder", embedder_model("fp32"), embedder_model("int8")),
    ):
        eight_bit = tmp / f"{kind}-8bit.onnx"
        quantise(fp32.path, eight_bit, reduce_range=False)
        paths = [str(fp32.path), str(int8.path), str(eight_bit)]
        out[kind] = dict(zip(RECIPES, paths, strict=True))
    return out


def inputs(data_dir: Path, every: int, sentences: int) -> dict[str, Any]:
    from evals.training.data import build_eval_pairs, load_data
    from evals.training.probes import PROBES

    corpus, _, dev = load_data(data_dir)
    pairs, _, _, _ = build_eval_pairs(dev, corpus, placed=True)
    return {
        "pairs": [list(p.pair()) for p in PROBES] + [list(p) for p in pairs[::every]],
        "probes": [{"name": p.name, "expected": p.expected} for p in PROBES],
        "sentences": [c.text for c in dev[:sentences]],
    }


def child(spec_file: Path, out_file: Path) -> None:
    """Run every graph of the spec on its inputs, one row per call as the run time does, and save the outputs."""
    from tools.models.minilm import base_model_path
    from tools.models.onnx_runtime import RowRunner, load_tokenizer

    spec = json.loads(spec_file.read_text())
    pair_tok, text_tok = load_tokenizer(base_model_path(), spec["max_len"]), load_tokenizer(base_model_path(), 256)
    pairs = pair_tok.encode_batch([tuple(p) for p in spec["inputs"]["pairs"]])
    texts = text_tok.encode_batch(spec["inputs"]["sentences"])
    arrays: dict[str, np.ndarray] = {}
    for kind, by_recipe in spec["graphs"].items():
        for recipe, path in by_recipe.items():
            rows = pairs if kind == "verifier" else texts
            output = "logits" if kind == "verifier" else "embeddings"
            arrays[f"{kind}|{recipe}"] = RowRunner(Path(path), output, threads=1).run(rows)
    np.savez(out_file, **arrays)  # type: ignore[arg-type]


def run_on(cpu: str | None, spec_file: Path, out_file: Path) -> dict[str, np.ndarray]:
    cmd = [sys.executable, "-m", "evals.studies.cpu_portability", "--child", str(spec_file), str(out_file)]
    if cpu:
        cmd = ["qemu-x86_64", "-cpu", cpu, *cmd]
    # qemu warns once per thread about CPUID bits it cannot emulate; they do not touch the vector units measured
    subprocess.run(cmd, check=True, cwd=REPO_ROOT, stderr=subprocess.DEVNULL if cpu else None)
    with np.load(out_file) as f:
        return {k: f[k] for k in f.files}


def compare(native: dict[str, np.ndarray], other: dict[str, np.ndarray], spec: dict[str, Any]) -> dict[str, Any]:
    from tools.models.verifier_artifact import LABELS

    n_probes = len(spec["inputs"]["probes"])
    out: dict[str, Any] = {}
    for key, a in native.items():
        b = other[key]
        kind, recipe = key.split("|", 1)
        row: dict[str, Any] = {"rows": len(a), "bit_identical_rows": int((a == b).all(axis=1).sum())}
        if kind == "verifier":
            t = spec["temperature"]
            pa, pb = softmax(a, t), softmax(b, t)
            flips = np.flatnonzero(a.argmax(1) != b.argmax(1))
            row |= {
                "max_abs_logit_diff": round(float(np.abs(a - b).max()), 5),
                "max_abs_prob_diff": round(float(np.abs(pa - pb).max()), 5),
                "label_changes": len(flips),
                "probe_label_changes": [
                    f"{spec['inputs']['probes'][i]['name']}: {LABELS[a[i].argmax()]} -> {LABELS[b[i].argmax()]}"
                    for i in flips
                    if i < n_probes
                ],
            }
        else:
            cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
            row |= {"max_abs_diff": round(float(np.abs(a - b).max()), 7), "min_cosine": round(float(cos.min()), 7)}
        out.setdefault(kind, {})[recipe] = row
    return out


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        f"# The CPU models on another x86-64 CPU: native ({res['native_cpu']}) vs `qemu-x86_64 -cpu {res['cpu']}`",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {res['n_pairs']} verifier pairs "
        f"({res['n_probes']} contrast probes and every {res['every']}th SciFact dev pair), {res['n_sentences']} "
        "claims for the embedder. Native CPU flags of note: " + ", ".join(res["native_flags"]) + ". Differences are "
        "rounded to 5 decimals (7 for the embedder): 0.0 with no bit-identical row is a difference below that.",
        "",
        "| verifier graph | max abs logit diff | max abs prob diff | bit-identical rows | labels changed | "
        "probe labels changed |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for recipe, r in res["compare"]["verifier"].items():
        probes = "; ".join(r["probe_label_changes"]) or "none"
        lines.append(
            f"| {recipe} | {r['max_abs_logit_diff']} | {r['max_abs_prob_diff']} | {r['bit_identical_rows']} / "
            f"{r['rows']} | {r['label_changes']} | {probes} |"
        )
    lines += ["", "| embedder graph | max abs diff | min cosine | bit-identical rows |", "|---|---:|---:|---:|"]
    for recipe, r in res["compare"]["embedder"].items():
        lines.append(
            f"| {recipe} | {r['max_abs_diff']} | {r['min_cosine']} | {r['bit_identical_rows']} / {r['rows']} |"
        )
    lines += ["", res.get("note", ""), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", nargs=2, type=Path, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--cpu", default="EPYC-Milan", help="qemu CPU model to compare with (qemu-x86_64 -cpu help)")
    ap.add_argument("--every", type=int, default=30, help="every N-th dev pair")
    ap.add_argument("--sentences", type=int, default=40)
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR)
    ap.add_argument("--note", default="")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = ap.parse_args(argv)
    if args.child:
        child(*args.child)
        return
    if not shutil.which("qemu-x86_64"):
        raise SystemExit("qemu-x86_64 is missing: apt-get install qemu-user")
    from tools.models.verifier_artifact import ARTIFACT_DIR, read_config

    config = read_config(ARTIFACT_DIR)
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        spec: dict[str, Any] = {
            "graphs": graphs(tmp),
            "inputs": inputs(args.data_dir, args.every, args.sentences),
            "max_len": int(config["max_len"]),
            "temperature": float(config["temperature"]),
        }
        spec_file = tmp / "spec.json"
        spec_file.write_text(json.dumps(spec))
        native = run_on(None, spec_file, tmp / "native.npz")
        other = run_on(args.cpu, spec_file, tmp / "other.npz")
    cpu = cpu_kind()
    res: dict[str, Any] = experiment_header("evals.studies.cpu_portability", argv, "dev", [])
    res |= {
        "cpu": args.cpu,
        "native_cpu": cpu["model"],
        "native_flags": cpu["flags"],
        "every": args.every,
        "n_pairs": len(spec["inputs"]["pairs"]),
        "n_probes": len(spec["inputs"]["probes"]),
        "n_sentences": len(spec["inputs"]["sentences"]),
        "compare": compare(native, other, spec),
        "note": args.note,
    }
    write_experiment(args.out, "cpu_portability", res, markdown)


if __name__ == "__main__":
    main()
