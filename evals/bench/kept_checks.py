"""Benchmark of the lookup among kept checks (agent.store.kept_checks): a fresh temporary SQLite thread store filled
with N checks (random unit vectors of the embedder's dimension, short synthetic claims, 50 users, one thread per
batch of 1,000), then the first lookup (cold: it reads the whole matrix), warm lookups (median and p95), warm
lookups limited to one user's checks, the database's part of a warm lookup (the refresh alone) and the matrix's
part (the search alone), a lookup after another instance added 10 rows (the incremental refresh) and one after
another instance forgot a thread of 1,000 rows (the whole matrix read again).

The same vectors go into a Chroma collection (a PersistentClient in a temporary folder, cosine space, the HNSW index
the deployment's dense retrieval uses), timed the same way, with its recall@k against the exact search and how often
its first is the exact first; and the embedding of one claim by get_embedder(), which a lookup needs first. Queries
are stored vectors with Gaussian noise (a claim reworded: cosine about 0.86 to its source).

    python -m evals.bench.kept_checks [--n 100000] [--postgres-url URL] [--out evals/results/kept_checks_bench.md]

`--postgres-url` also times the store on that Postgres (an empty scratch database: the bench refuses one whose
kept checks table holds rows, and deletes its own rows at the end).
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from agent.settings.app import Settings
from agent.store.kept_checks import KeptCheck, kept_checks
from evals.experiments import REPO_ROOT, git_commit
from tools.models.embedder import DIM

BATCH = 1000  # rows per add_many, and per thread
USERS = 50
K = 5
NOISE = 0.03  # per coordinate: a noise vector of norm about 0.6 against a unit vector
VERDICTS = ("Supported", "Refuted", "Not enough evidence", "Mixed evidence")
WORDS = ("coffee", "sleep", "tea", "salt", "vitamin", "exercise", "statin", "aspirin", "insulin", "memory", "fibrosis",
         "cancer", "risk", "mortality")  # fmt: skip
CLAIM = "Vitamin D supplementation prevents hip fractures in older adults."


def machine() -> dict[str, Any]:
    """lscpu's model name, which of avx2 / avx512f / amx the CPU has, the CPU count and Python's version."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    model = next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), "unknown")
    try:
        flags = {f for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("flags")
                 for f in ln.split(":", 1)[1].split()}  # fmt: skip
    except OSError:
        flags = set()
    present = [f for f in ("avx2", "avx512f") if f in flags] + sorted(f for f in flags if f.startswith("amx"))
    return {"cpu": model, "flags": present, "cpus": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__}  # fmt: skip


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def ms(samples: list[float]) -> dict[str, float]:
    return {"median_ms": round(float(np.median(samples)) * 1000, 2),
            "p95_ms": round(float(np.percentile(samples, 95)) * 1000, 2)}  # fmt: skip


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def each(fn: Callable[[np.ndarray], Any], queries: np.ndarray) -> tuple[dict[str, float], list[Any]]:
    """The time of `fn` on every query (median, p95) and its answers."""
    spent: list[float] = []
    answers: list[Any] = []
    for q in queries:
        t = time.perf_counter()
        answers.append(fn(q))
        spent.append(time.perf_counter() - t)
    return ms(spent), answers


def checks(rng: np.random.Generator, start: int, n: int) -> list[KeptCheck]:
    out = []
    for i in range(start, start + n):
        claim = f"{' '.join(rng.choice(WORDS, 4))} claim {i}."
        out.append(KeptCheck(f"bench-{i}", f"bench-thread-{i // BATCH}", claim, VERDICTS[i % len(VERDICTS)],
                             int(i % 12), "2025-01-01T00:00:00+00:00", f"user-{i % USERS}"))  # fmt: skip
    return out


def store_figures(settings: Settings, vectors: np.ndarray, queries: np.ndarray, seed: int) -> dict[str, Any]:
    """The kept checks store, filled and timed; its exact top-K of each query (the ground truth for Chroma)."""
    rng = np.random.default_rng(seed)
    res: dict[str, Any] = {}
    with kept_checks(settings) as writer:
        if writer.count():
            raise SystemExit("the kept checks table holds rows already: give an empty scratch database")
        t = time.perf_counter()
        for start in range(0, len(vectors), BATCH):
            part = vectors[start : start + BATCH]
            writer.add_many(list(zip(checks(rng, start, len(part)), part, strict=True)))
        res["fill_s"] = round(time.perf_counter() - t, 1)
        with kept_checks(settings) as reader:
            cold, _ = timed(lambda: reader.nearest(queries[0], k=K))
            res["cold_ms"] = round(cold * 1000, 1)
            res["warm"], found = each(lambda q: reader.nearest(q, k=K), queries)
            res["warm_one_user"], _ = each(lambda q: reader.nearest(q, k=K, visible_to="user-3"), queries)
            res["refresh_only"], _ = each(lambda q: reader.refresh(), queries)
            res["search_only"], _ = each(lambda q: reader.index.search(q, K, 0.0, None), queries)
            writer.add_many(list(zip(checks(rng, len(vectors), 10), unit(rng.normal(size=(10, DIM))), strict=True)))
            after_add, _ = timed(lambda: reader.nearest(queries[1], k=K))
            res["after_10_added_ms"] = round(after_add * 1000, 1)
            res["reloads_after_add"] = reader.index.reloads
            res["forgotten"] = writer.forget_thread("bench-thread-0")
            after_forget, _ = timed(lambda: reader.nearest(queries[2], k=K))
            res["after_forget_ms"] = round(after_forget * 1000, 1)
            res["reloads_after_forget"] = reader.index.reloads
            res["rows_in_memory"] = len(reader.index)
        for thread in range(len(vectors) // BATCH + 2):  # a Postgres scratch database is left as it was
            writer.forget_thread(f"bench-thread-{thread}")
    res["exact_top"] = [[c.check_id for c, _ in hits] for hits in found]
    return res


def chroma_figures(vectors: np.ndarray, queries: np.ndarray, exact: list[list[str]], root: Path) -> dict[str, Any]:
    """The same vectors in a Chroma collection (cosine, HNSW), timed as the store is; recall@K against `exact`."""
    import chromadb
    from chromadb.api.client import SharedSystemClient
    from chromadb.config import Settings as ChromaSettings

    from tools.models.embedder import ChromaEmbeddingFunction

    def client() -> Any:
        return chromadb.PersistentClient(path=str(root / "chroma"), settings=ChromaSettings(anonymized_telemetry=False))

    ef = ChromaEmbeddingFunction()  # never called: every vector and query is given
    col = client().create_collection("kept", embedding_function=ef, metadata={"hnsw:space": "cosine"})
    res: dict[str, Any] = {}
    t = time.perf_counter()
    step = 5000  # under Chroma's largest batch
    for start in range(0, len(vectors), step):
        ids = range(start, min(start + step, len(vectors)))
        col.add(ids=[f"bench-{i}" for i in ids], embeddings=vectors[start : start + step],
                metadatas=[{"checked_by": f"user-{i % USERS}"} for i in ids])  # fmt: skip
    res["fill_s"] = round(time.perf_counter() - t, 1)
    SharedSystemClient.clear_system_cache()  # a fresh client, as a new process has: the index is read from disk
    col = client().get_collection("kept", embedding_function=ef)
    cold, _ = timed(lambda: col.query(query_embeddings=queries[:1], n_results=K))
    res["cold_ms"] = round(cold * 1000, 1)
    res["warm"], found = each(lambda q: col.query(query_embeddings=q[None, :], n_results=K), queries)
    res["warm_one_user"], _ = each(
        lambda q: col.query(query_embeddings=q[None, :], n_results=K, where={"checked_by": "user-3"}), queries
    )
    extra = unit(np.random.default_rng(1).normal(size=(10, DIM)))
    col.add(ids=[f"extra-{i}" for i in range(10)], embeddings=extra, metadatas=[{"checked_by": "user-0"}] * 10)
    after_add, _ = timed(lambda: col.query(query_embeddings=queries[1:2], n_results=K))
    res["after_10_added_ms"] = round(after_add * 1000, 1)
    hits = [len(set(f["ids"][0]) & set(e)) for f, e in zip(found, exact, strict=True)]
    res["recall_at_k"] = round(sum(hits) / max(1, sum(len(e) for e in exact)), 4)
    res["same_first"] = round(sum(f["ids"][0][:1] == e[:1] for f, e in zip(found, exact, strict=True)) / len(exact), 4)
    SharedSystemClient.clear_system_cache()
    return res


def embed_figures() -> dict[str, Any]:
    from tools.models.embedder import get_embedder

    load, embedder = timed(get_embedder)
    first, _ = timed(lambda: embedder.encode([CLAIM]))
    warm, _ = each(lambda q: embedder.encode([CLAIM]), np.zeros((20, 1)))
    return {"variant": embedder.variant, "load_s": round(load, 2), "first_ms": round(first * 1000, 1), **warm}


def row(name: str, r: dict[str, Any]) -> str:
    after_forget = f"{r['after_forget_ms']} ms" if "after_forget_ms" in r else "—"
    return (f"| {name} | {r['fill_s']} s | {r['cold_ms']} ms | {r['warm']['median_ms']} / {r['warm']['p95_ms']} ms | "
            f"{r['warm_one_user']['median_ms']} / {r['warm_one_user']['p95_ms']} ms | {r['after_10_added_ms']} ms | "
            f"{after_forget} | {r.get('recall_at_k', 1)} / {r.get('same_first', 1)} |")  # fmt: skip


def markdown(res: dict[str, Any]) -> str:
    m, e = res["machine"], res["embed"]
    lines = [
        f"# Lookup among {res['n']:,} kept checks: brute force against Chroma",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}; {m['cpus']} CPUs, {m['cpu']} "
        f"(flags present: {', '.join(m['flags']) or 'none of avx2, avx512f, amx'}); Python {m['python']}, "
        f"numpy {m['numpy']}. Load average (1, 5, 15 min) {res['load_average_before']} before, "
        f"{res['load_average_after']} after: other work on the machine slows every figure.",
        "",
        f"Vectors: random unit vectors of {DIM} dimensions; queries: {len(res['queries'])} stored vectors with noise "
        f"(cosine about 0.86 to their source); top {K}; one user holds 1/{USERS} of the checks. Warm figures are "
        "median / p95 over the queries. Chroma answers with its default HNSW search; random vectors are a hard "
        "case for HNSW, and its recall on real claim embeddings is not measured here.",
        "",
        "| store | fill | cold lookup | warm lookup | warm, one user's | after 10 rows added elsewhere | after a "
        f"thread of {BATCH:,} forgotten elsewhere | recall@{K} / same first |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        *(row(name, res[key]) for key, name in (("sqlite", "kept checks, SQLite"), ("postgres", "kept checks, "
          "Postgres"), ("chroma", "Chroma (HNSW, cosine)")) if key in res),
        "",
    ]  # fmt: skip
    for key in ("sqlite", "postgres"):
        if key in res:
            r = res[key]
            lines.append(
                f"- {key}: of a warm lookup, the refresh (the generation and the highest sequence number, and the "
                f"rows above the highest held) takes {r['refresh_only']['median_ms']} ms median and the matrix "
                f"product with its top {K} {r['search_only']['median_ms']} ms; after the 10 new rows the whole "
                f"table had been read again {r['reloads_after_add']} times, after the forgotten thread "
                f"{r['reloads_after_forget']} ({r['forgotten']} rows gone, {r['rows_in_memory']:,} in memory)."
            )
    lines += [
        f"- embedding the claim first ({e['variant']}): {e['median_ms']} ms median, {e['p95_ms']} ms p95 "
        f"(the model's load {e['load_s']} s, its first call {e['first_ms']} ms).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="kept checks")
    ap.add_argument("--queries", type=int, default=200, help="warm lookups")
    ap.add_argument("--postgres-url", default=None, help="also time the store on this (empty, scratch) Postgres")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results" / "kept_checks_bench.md")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    vectors = unit(rng.normal(size=(args.n, DIM)))
    picks = rng.integers(0, args.n, args.queries)
    queries = unit(vectors[picks] + rng.normal(scale=NOISE, size=(args.queries, DIM)))
    res: dict[str, Any] = {
        "command": "python -m evals.bench.kept_checks " + shlex.join(sys.argv[1:] if argv is None else argv),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine(),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "n": args.n,
        "queries": picks.tolist(),
    }
    with tempfile.TemporaryDirectory(prefix="kept-checks-bench-") as tmp:
        base = Settings(_env_file=None)
        local = base.with_values(stores={"data_dir": Path(tmp), "database_url": None, "checkpoint_url": None})
        res["sqlite"] = store_figures(local, vectors, queries, args.seed)
        print(f"sqlite: { {k: v for k, v in res['sqlite'].items() if k != 'exact_top'} }", flush=True)
        if args.postgres_url:
            remote = base.with_values(stores={"data_dir": Path(tmp), "checkpoint_url": args.postgres_url})
            res["postgres"] = store_figures(remote, vectors, queries, args.seed)
            print(f"postgres: { {k: v for k, v in res['postgres'].items() if k != 'exact_top'} }", flush=True)
        exact = res["sqlite"].pop("exact_top")
        res.get("postgres", {}).pop("exact_top", None)
        res["chroma"] = chroma_figures(vectors, queries, exact, Path(tmp))
        print(f"chroma: {res['chroma']}", flush=True)
    res["embed"] = embed_figures()
    res["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(res))
    print(markdown(res))


if __name__ == "__main__":
    main()
