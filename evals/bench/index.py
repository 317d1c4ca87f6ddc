"""Benchmark of the two CPU models, PyTorch fp32 against the ONNX Runtime path the run time uses, side by side in one
run: index-build embedding throughput on a sample of real corpus texts ("title: sentence", as the index embeds
them; no embedding store, so every text is embedded), verifier pairs/s on SciFact dev pairs, and the cold start of
each (a fresh process importing the module, loading the model and answering once). Then the run time's way of
embedding (one text per call on 1-thread sessions, two in flight) against length-sorted, padded batches of 32 under
one session with the same threads: the throughput of each and how far the batched vectors move from the rows' (an int8
graph quantises its activations per call, so a batched text's vector depends on the texts beside it).

Each comparison runs in ABBA order on two halves of the sample (torch, ONNX, ONNX, torch), so a machine that gets
busier or quieter during the run weighs on both sides alike; ratios are of summed times.

    python -m evals.bench.index --texts 3000 --out evals/results

``--verifier NAME=DIR`` also times another verifier artifact beside the shipped one, both on the run time's ONNX
int8 graph, on the same pairs; ``--verifiers-only`` times nothing else (write it to another ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, cpu_kind, git_commit

SCIFACT = REPO_ROOT.parent / "shared" / "data" / "scifact"

COLD_START = {
    "embedder": "from tools.models.embedder import get_embedder; get_embedder().encode(['warm'])",
    "verifier": "from tools.models.verifier import Verifier; Verifier().predict([('a', 'b')])",
}


def sample_texts(corpus: Path, n: int, seed: int) -> list[str]:
    from tools.corpus import load_corpus
    from tools.index.dense_store import sentence_text

    docs, _ = load_corpus(corpus)
    texts = [sentence_text(d, i) for d in docs for i in range(len(d.sentences))]
    return random.Random(seed).sample(texts, min(n, len(texts)))


def sample_pairs(data_dir: Path, n: int, seed: int) -> list[tuple[str, str]]:
    from evals.training.data import build_eval_pairs, load_data

    corpus, _, dev = load_data(data_dir)
    pairs, _, _, _ = build_eval_pairs(dev, corpus, placed=True)
    return random.Random(seed).sample(pairs, min(n, len(pairs)))


def abba(
    items: Sequence[Any], a: Callable[[Sequence[Any]], object], b: Callable[[Sequence[Any]], object]
) -> tuple[float, float]:
    """Seconds of ``a`` and of ``b`` over all of ``items``, run as a(h1), b(h1), b(h2), a(h2)."""
    half = len(items) // 2
    h1, h2 = items[:half], items[half:]
    spent = {"a": 0.0, "b": 0.0}
    for name, fn, part in (("a", a, h1), ("b", b, h1), ("b", b, h2), ("a", a, h2)):
        t = time.perf_counter()
        fn(part)
        spent[name] += time.perf_counter() - t
    return spent["a"], spent["b"]


def cold_start(what: str, backend: str) -> float:
    """Wall seconds of a fresh Python process that loads the model and answers once."""
    env = {**os.environ, "MODEL_BACKEND": backend}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", COLD_START[what]], env=env, check=True, cwd=REPO_ROOT)
    return round(time.perf_counter() - t, 2)


def pair(torch_s: float, onnx_s: float, n: int, unit: str) -> dict[str, Any]:
    return {
        f"torch_fp32_{unit}_per_s": round(n / torch_s, 1),
        f"onnx_{unit}_per_s": round(n / onnx_s, 1),
        "ratio": round(torch_s / onnx_s, 2),
        "n": n,
    }


def batching_by_length(texts: Sequence[str], size: int = 32) -> dict[str, Any]:
    """Rows (the run time's RowRunner) against length-sorted batches of ``size`` on the default embedder graph."""
    import numpy as np

    from tools.models.embedder import MAX_TOKENS, default_variant
    from tools.models.minilm import base_model_path
    from tools.models.onnx_models import embedder_model, runtime_settings
    from tools.models.onnx_runtime import RowRunner, load_tokenizer, pad_batch, session

    variant = default_variant()
    model = embedder_model("fp32" if variant == "onnx-fp32" else "int8")
    encodings = load_tokenizer(base_model_path(), MAX_TOKENS).encode_batch(list(texts))
    rows_runner = RowRunner(model.path, "embeddings")
    batched = session(model.path, runtime_settings().threads())
    order = sorted(range(len(encodings)), key=lambda k: len(encodings[k].ids))
    rows = np.zeros((len(encodings), 384), dtype=np.float32)
    batches = np.zeros_like(rows)

    def by_rows(part: Sequence[int]) -> None:
        rows[list(part)] = rows_runner.run([encodings[k] for k in part])

    def by_batches(part: Sequence[int]) -> None:
        ordered = sorted(part, key=lambda k: len(encodings[k].ids))
        for i in range(0, len(ordered), size):
            chunk = ordered[i : i + size]
            batches[chunk] = batched.run(["embeddings"], pad_batch([encodings[k] for k in chunk]))[0]

    by_rows(order[:32])
    by_batches(order[:32])
    ids = list(range(len(encodings)))
    rs, bs = abba(ids, by_rows, by_batches)
    cosine = (rows * batches).sum(axis=1)
    return {
        "variant": variant,
        "rows_texts_per_s": round(len(ids) / rs, 1),
        "sorted_batches_texts_per_s": round(len(ids) / bs, 1),
        "batch_size": size,
        "ratio": round(rs / bs, 2),
        "cosine_to_rows_min": round(float(cosine.min()), 5),
        "cosine_to_rows_mean": round(float(cosine.mean()), 5),
        "mean_tokens": round(float(np.mean([len(e.ids) for e in encodings])), 1),
        "n": len(ids),
    }


def against_shipped(pairs: list[tuple[str, str]], others: dict[str, Path]) -> dict[str, Any]:
    """Each other verifier artifact beside the shipped one on the same pairs, both on the run time's ONNX int8 graph,
    ABBA: pairs/s of each and the shipped one's speed as a multiple of the other's."""
    from tools.models.verifier import Verifier

    if not others:
        return {}
    shipped = Verifier(precision="int8")
    shipped.predict(pairs[:8])
    out: dict[str, Any] = {}
    for name, artifact in others.items():
        other = Verifier(artifact, precision="int8")
        other.predict(pairs[:8])
        ss, os_ = abba(pairs, shipped.predict, other.predict)
        out[name] = {"artifact": str(artifact), "shipped_pairs_per_s": round(len(pairs) / ss, 1),
                     "pairs_per_s": round(len(pairs) / os_, 1), "shipped_speedup": round(os_ / ss, 2),
                     "n": len(pairs)}  # fmt: skip
        print(f"verifier {name} vs shipped (int8): {out[name]}", flush=True)
    return out


def run(texts: list[str], pairs: list[tuple[str, str]]) -> dict[str, Any]:
    from tools.models.embedder import get_embedder
    from tools.models.verifier import Verifier

    torch_emb, onnx_emb = get_embedder("torch-fp32"), get_embedder()
    torch_emb.encode(texts[:32])  # warm-up: first calls allocate
    onnx_emb.encode(texts[:32])
    # the index build's calls: chunks of up to 2048 texts, the PyTorch path in batches of 64
    ts, os_ = abba(texts, lambda t: torch_emb.encode(t, batch_size=64), lambda t: onnx_emb.encode(t))
    embed = {"onnx_variant": onnx_emb.variant, **pair(ts, os_, len(texts), "texts")}
    print(f"embedding: {embed}", flush=True)
    batching = batching_by_length(texts)
    print(f"rows vs length-sorted batches: {batching}", flush=True)

    torch_ver, onnx_ver = Verifier(backend="torch"), Verifier()
    torch_ver.predict(pairs[:8])
    onnx_ver.predict(pairs[:8])
    ts, os_ = abba(pairs, torch_ver.predict, onnx_ver.predict)
    verify = {"onnx_variant": onnx_ver.variant, **pair(ts, os_, len(pairs), "pairs")}
    print(f"verifier: {verify}", flush=True)
    # the verifier's two ONNX precisions: what reading every pair as trained (fp32) costs against int8
    fp32_ver, int8_ver = Verifier(precision="fp32"), Verifier(precision="int8")
    int8_ver.predict(pairs[:8])
    fs, is_ = abba(pairs, fp32_ver.predict, int8_ver.predict)
    precision = {
        "fp32_pairs_per_s": round(len(pairs) / fs, 1),
        "int8_pairs_per_s": round(len(pairs) / is_, 1),
        "ratio": round(fs / is_, 2),
        "n": len(pairs),
    }
    print(f"verifier fp32 vs int8: {precision}", flush=True)

    cold = {
        what: {"torch_fp32_s": cold_start(what, "torch"), "onnx_s": cold_start(what, "onnx")} for what in COLD_START
    }
    print(f"cold start: {cold}", flush=True)
    return {"embedding": embed, "batching": batching, "verifier": verify, "verifier_precision": precision,
            "cold_start_s": cold}


def markdown(res: dict[str, Any]) -> str:
    lines = [
        "# Index-build embedding and verifier throughput: PyTorch fp32 vs ONNX Runtime",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}, {res['machine']['cpus']} CPUs "
        f"({res['machine'].get('cpu', {}).get('model', 'CPU not recorded')}; "
        f"{', '.join(res['machine'].get('cpu', {}).get('flags', []))}). Both sides "
        "in the same run, ABBA order on two halves of the sample; other work on the machine slows both.",
    ]
    if "embedding" in res:
        e, v = res["embedding"], res["verifier"]
        lines += [
            "",
            "| what | PyTorch fp32 | ONNX | ONNX variant | ratio | n |",
            "|---|---:|---:|---|---:|---:|",
            f"| index-build embedding (texts/s) | {e['torch_fp32_texts_per_s']} | {e['onnx_texts_per_s']} | "
            f"{e['onnx_variant']} | {e['ratio']}x | {e['n']} |",
            f"| verifier (pairs/s, dev pairs) | {v['torch_fp32_pairs_per_s']} | {v['onnx_pairs_per_s']} | "
            f"{v['onnx_variant']} | {v['ratio']}x | {v['n']} |",
        ]
        for what, c in res["cold_start_s"].items():
            lines.append(f"| cold start, {what} (s) | {c['torch_fp32_s']} | {c['onnx_s']} | | | |")
    if "verifier_precision" in res:
        p = res["verifier_precision"]
        lines += [
            "",
            "| verifier on ONNX Runtime (pairs/s, dev pairs) | fp32 (the run time's) | int8 (7-bit weights) | "
            "int8 / fp32 | n |",
            "|---|---:|---:|---:|---:|",
            f"| same pairs, ABBA | {p['fp32_pairs_per_s']} | {p['int8_pairs_per_s']} | {p['ratio']}x | {p['n']} |",
        ]
    if "batching" in res:
        b = res["batching"]
        lines += [
            "",
            f"| embedding {b['variant']} (texts/s, {b['mean_tokens']} tokens a text) | one text per call (the run "
            f"time's) | length-sorted batches of {b['batch_size']} | batches' speed-up | cosine of a batched vector to "
            "its row's, min / mean | n |",
            "|---|---:|---:|---:|---:|---:|",
            f"| same texts, ABBA | {b['rows_texts_per_s']} | {b['sorted_batches_texts_per_s']} | {b['ratio']}x | "
            f"{b['cosine_to_rows_min']} / {b['cosine_to_rows_mean']} | {b['n']} |",
        ]
    if res.get("other_verifiers"):
        lines += [
            "",
            "| another verifier beside the shipped one (ONNX int8, pairs/s, dev pairs, ABBA) | shipped | it | "
            "shipped's speed-up | n |",
            "|---|---:|---:|---:|---:|",
            *(f"| {name} (`{o['artifact']}`) | {o['shipped_pairs_per_s']} | {o['pairs_per_s']} | "
              f"{o['shipped_speedup']}x | {o['n']} |" for name, o in res["other_verifiers"].items()),
        ]  # fmt: skip
    pairs = "Pairs: a random sample of the verifier's dev pairs (evals/results/verifier_dev.md)."
    lines += [
        "",
        "Texts: a random sample of the corpus's title-prepended sentences. " + pairs + " Cold start: a fresh process "
        "importing the module, loading the model (ONNX files already exported) and answering once."
        if "embedding" in res
        else pairs,
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=3000, help="corpus texts to embed (split between both halves)")
    ap.add_argument("--pairs", type=int, default=256, help="verifier dev pairs")
    ap.add_argument("--data-dir", type=Path, default=SCIFACT, help="SciFact folder (corpus and dev claims)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    ap.add_argument("--verifier", action="append", default=[], metavar="NAME=DIR",
                    help="another verifier artifact to time beside the shipped one (repeat)")  # fmt: skip
    ap.add_argument("--verifiers-only", action="store_true", help="time only the verifiers beside the shipped one")
    args = ap.parse_args(argv)
    others = {k: Path(v) for k, v in (spec.split("=", 1) for spec in args.verifier)}
    texts = sample_texts(args.data_dir / "corpus.jsonl", args.texts, args.seed)
    pairs = sample_pairs(args.data_dir, args.pairs, args.seed)
    res: dict[str, Any] = {
        "command": "python -m evals.bench.index " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "git_commit": git_commit(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "cpu": cpu_kind()},
        **({} if args.verifiers_only else run(texts, pairs)),
        "other_verifiers": against_shipped(pairs, others),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_index.json").write_text(json.dumps(res, indent=2) + "\n")
    (args.out / "bench_index.md").write_text(markdown(res))
    print(markdown(res))


if __name__ == "__main__":
    main()
