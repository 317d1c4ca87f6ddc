"""Do the ONNX Runtime models keep the quality of the PyTorch fp32 ones on SciFact dev?

* Verifier: macro-F1 on the dev pairs that ``python -m evals.training.train_verifier`` reports (evals/training/data.py
  ``build_eval_pairs``, placed premises; evals/results/verifier_dev.md), for torch fp32, ONNX fp32 and ONNX int8,
  plus how often each agrees with torch's label and how far its calibrated probabilities move.
* Retrieval: ``claimtrace eval scifact --split dev --retrieval-only`` against one index per embedder variant (each
  ``--index VARIANT=DATA_DIR`` names the data folder of an index embedded by that variant; its queries are embedded
  by the same variant), Recall@3 / @5 of the fused ranking and of the dense baseline.

    python -m evals.studies.onnx_quality --index torch-fp32=$HOME/.local/share/claimtrace \\
        --index onnx-int8=/tmp/ct_onnx --out evals/results
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.reliability import reliability
from evals.training.data import build_eval_pairs, load_data
from evals.training.label_metrics import metrics

DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "scifact"
VERIFIER_VARIANTS = (("torch", "fp32"), ("onnx", "fp32"), ("onnx", "int8"))
TOLERANCE = 0.005


def verifier_quality(data_dir: Path, artifact: Path | None = None) -> dict[str, Any]:
    """The variants of one verifier artifact (``artifact``; the shipped one when None) on the dev pairs; the 8-bit
    baseline is the shipped verifier's recipe before 7-bit, so it is measured for the shipped one only."""
    from tools.models.verifier import Verifier

    corpus, _, dev = load_data(data_dir)
    pairs, labels, _, _ = build_eval_pairs(dev, corpus, placed=True)
    out: dict[str, Any] = {}
    ref: np.ndarray | None = None
    variants: list[tuple[str, Any]] = [
        (f"{backend}-{precision}", Verifier(artifact, backend=backend, precision=precision))  # type: ignore[arg-type]
        for backend, precision in VERIFIER_VARIANTS
    ]
    if artifact is None:
        with tempfile.TemporaryDirectory() as tmp:  # the session holds the graph once it has loaded it
            variants.append(("onnx-int8, 8-bit weights (the recipe before 7-bit)", eight_bit_verifier(Path(tmp))))
    for name, v in variants:
        t = time.perf_counter()
        probs = np.asarray(v.predict_proba(pairs))
        seconds = time.perf_counter() - t
        pred = probs.argmax(axis=1)
        m = metrics(labels, [int(p) for p in pred])
        row: dict[str, Any] = {"macro_f1": m["macro_f1"], "accuracy": m["accuracy"], "n": m["n"]}
        row["ece"] = reliability(probs, labels)["ece"]
        row["pairs_per_s"] = round(len(pairs) / seconds, 1)
        if ref is None:
            ref = probs
        else:
            row["label_agreement_with_torch"] = round(float((pred == ref.argmax(axis=1)).mean()), 4)
            row["max_abs_prob_diff_vs_torch"] = round(float(np.abs(probs - ref).max()), 4)
            row["mean_abs_prob_diff_vs_torch"] = round(float(np.abs(probs - ref).mean()), 5)
        out[name] = row
        print(f"verifier {name}: {row}", flush=True)
    return out


def eight_bit_verifier(tmp: Path) -> Any:
    """The claim verifier on its int8 graph quantised with 8-bit weights (tools.models.onnx_models.quantise with
    ``reduce_range=False``, written into ``tmp``), the recipe the run time used before: the baseline of the 7-bit
    one."""
    from tools.models.onnx_models import quantise, verifier_model
    from tools.models.verifier import ARTIFACT_DIR, Verifier

    graph = tmp / "verifier-8bit.onnx"
    quantise(verifier_model(ARTIFACT_DIR, "fp32").path, graph, reduce_range=False)
    return Verifier(backend="onnx", precision="int8", graph=graph)


def retrieval_quality(indexes: Mapping[str, Path]) -> dict[str, Any]:
    """One retrieval-only dev run per index, each in a fresh process whose DATA_DIR is that index's folder."""
    out: dict[str, Any] = {}
    for variant, data_dir in indexes.items():
        manifest = json.loads((data_dir / "index" / "manifest.json").read_text())
        recorded = manifest.get("embedder", "torch-fp32")
        if recorded != variant.split(" ", 1)[0]:
            raise SystemExit(f"{data_dir}: the index was embedded by {recorded}, not {variant}")
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "ui.terminal.cli", "eval", "scifact", "--split", "dev", "--retrieval-only"]
            cmd += ["--no-progress"]
            cmd += ["--out", tmp]
            env = {**os.environ, "DATA_DIR": str(data_dir)}
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            res = json.loads(next(Path(tmp).glob("*.json")).read_text())
        out[variant] = {
            "data_dir": str(data_dir),
            "index_fingerprint": manifest["fingerprint"],
            "fused": {k: round(res["retrieval"][k], 4) for k in ("recall@3", "recall@5")},
            "dense": {k: round(res["baselines"]["dense"]["retrieval"][k], 4) for k in ("recall@3", "recall@5")},
            "claims": res["run"]["claims_evaluated"],
        }
        print(f"retrieval {variant}: {out[variant]}", flush=True)
    return out


def verdicts(res: Mapping[str, Any]) -> dict[str, Any]:
    """Each variant's drop below torch fp32 on the gating figure (verifier dev macro-F1; fused retrieval Recall@5)
    and whether it stays within the tolerance; the Recall@3 drop is shown beside it."""
    out: dict[str, Any] = {}
    ver = res.get("verifier", {})
    for name, row in ver.items():
        if name != "torch-fp32":
            drop = round(ver["torch-fp32"]["macro_f1"] - row["macro_f1"], 4)
            out[f"verifier {name}"] = {"gate": "macro-F1", "drop": drop, "within_tolerance": drop <= TOLERANCE}
    ret = res.get("retrieval", {})
    if "torch-fp32" in ret:
        ref = ret["torch-fp32"]["fused"]
        for name, row in ret.items():
            if name != "torch-fp32":
                drop = round(ref["recall@5"] - row["fused"]["recall@5"], 4)
                out[f"embedder {name}"] = {
                    "gate": "fused Recall@5",
                    "drop": drop,
                    "within_tolerance": drop <= TOLERANCE,
                    "recall@3_drop": round(ref["recall@3"] - row["fused"]["recall@3"], 4),
                }
    return out


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# ONNX Runtime models vs PyTorch fp32 — SciFact dev",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. Tolerance: a drop of at most "
        f"{TOLERANCE} below torch fp32 in verifier dev macro-F1 and in fused retrieval Recall@5. One of the 188 dev "
        "claims with evidence moves Recall@k by up to 0.0053.",
        "",
    ]
    if res.get("verifier"):
        lines += [
            "## Verifier (dev pairs of evals/results/verifier_dev.md, placed premises)",
            "",
            "| variant | macro-F1 | accuracy | ECE | n | label agreement with torch | max / mean abs prob diff | "
            "pairs/s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, r in res["verifier"].items():
            agree = r.get("label_agreement_with_torch", "—")
            diff = (
                f"{r['max_abs_prob_diff_vs_torch']} / {r['mean_abs_prob_diff_vs_torch']}"
                if "max_abs_prob_diff_vs_torch" in r
                else "—"
            )
            lines.append(
                f"| {name} | {r['macro_f1']:.4f} | {r['accuracy']:.4f} | {r['ece']:.4f} | {r['n']} | {agree} | "
                f"{diff} | {r['pairs_per_s']} |"
            )
        lines += [
            "",
            "ECE: expected calibration error of the calibrated top-label probability (10 bins; the temperature was "
            "fitted on torch fp32 logits). pairs/s: one pass each, while other work shares the machine "
            "(evals/results/bench_index.md compares speed properly).",
            "",
        ]
    if res.get("retrieval"):
        lines += [
            "## Retrieval (claim-only queries, `claimtrace eval scifact --split dev --retrieval-only`)",
            "",
            "| index embedded by | fused R@3 | fused R@5 | dense R@3 | dense R@5 | claims |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for name, r in res["retrieval"].items():
            f, d = r["fused"], r["dense"]
            lines.append(
                f"| {name} | {f['recall@3']:.4f} | {f['recall@5']:.4f} | {d['recall@3']:.4f} | "
                f"{d['recall@5']:.4f} | {r['claims']} |"
            )
        lines.append("")
    if res.get("verdicts"):
        lines += ["## Within tolerance", ""]
        for name, v in res["verdicts"].items():
            also = f" (Recall@3 drop {v['recall@3_drop']})" if "recall@3_drop" in v else ""
            verdict = "yes" if v["within_tolerance"] else "NO"
            lines.append(f"- {name}: {v['gate']} drop {v['drop']}{also} -> {verdict}")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR, help="SciFact folder (corpus and claims)")
    ap.add_argument(
        "--index",
        action="append",
        default=[],
        metavar="VARIANT=DATA_DIR",
        help="a data folder whose index that embedder variant built (repeat; torch-fp32 first is the reference); "
        "words after the variant name it in the report ('onnx-int8 7-bit=DIR')",
    )
    ap.add_argument("--skip-verifier", action="store_true")
    ap.add_argument("--verifier", type=Path, default=None, help="a verifier artifact folder (default: the shipped one)")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = ap.parse_args(argv)
    indexes = {k: Path(v).expanduser() for k, v in (spec.split("=", 1) for spec in args.index)}
    claims = [json.loads(line) for line in (args.data_dir / "claims_dev.jsonl").read_text().splitlines()]
    res: dict[str, Any] = experiment_header("evals.studies.onnx_quality", argv, "dev", claims)
    res["machine"] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    if not args.skip_verifier:
        res["verifier"] = verifier_quality(args.data_dir, args.verifier)
    if indexes:
        res["retrieval"] = retrieval_quality(indexes)
    res["verdicts"] = verdicts(res)
    write_experiment(args.out, "onnx_quality", res, markdown)


if __name__ == "__main__":
    main()
