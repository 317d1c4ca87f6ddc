"""Benchmark of the whole "checked before" lookup as a user waits for it (agent.earlier.matches.find_earlier): the
claim embedded, the kept checks scanned, and the nearest kept claims read against it by the claim verifier, and by
the LLM where the verifier is unsure; the verifier alone is measured in the same run, as the baseline. The
store holds every SciFact train claim as a kept check (real claims, so that the candidates and their number are
what a user meets); the queries are the other side of the fit split's pairs (evals/claim_matching/pairs.jsonl:
paraphrases, opposites and related claims of those train claims).

    python -m evals.bench.earlier_match [--out evals/results/earlier_match_bench.md]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from agent.earlier.matches import CANDIDATES, EarlierCheck, find_earlier, matching_llm, record
from agent.settings.app import Settings, get_settings
from agent.state import StanceVerifier
from evals.bench.kept_checks import machine
from evals.claim_matching.pairs import load_pairs
from evals.experiments import REPO_ROOT, git_commit
from evals.training.bearing_replay import DATA_DIR
from evals.training.data import load_data
from tools.models.embedder import Embedder


def lookup(
    settings: Settings, embedder: Embedder, verifier: StanceVerifier, claim: str, llm: BaseChatModel | None
) -> tuple[float, list[EarlierCheck]]:
    t = time.perf_counter()
    found = find_earlier(settings, embedder, verifier, claim, llm=llm)
    return time.perf_counter() - t, found


def row(name: str, runs: list[tuple[float, list[EarlierCheck]]]) -> str:
    """One table row: the lookups' times, candidates, the LLM's calls (two a pair it read) and the matches."""
    ms = sorted(1000 * s for s, _ in runs)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    candidates = [len(found) for _, found in runs]
    calls = [2 * sum(e.llm_same is not None for e in found) for _, found in runs]
    matched = sum(any(e.matched for e in found) for _, found in runs)
    return (f"| {name} | {len(ms)} | {statistics.median(ms):.0f} ms | {p95:.0f} ms | {ms[-1]:.0f} ms | "
            f"{statistics.median(candidates):.0f} / {max(candidates)} | {statistics.mean(calls):.1f} / {max(calls)} | "
            f"{matched} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results" / "earlier_match_bench.md")
    args = ap.parse_args(argv)
    from tools.models.embedder import get_embedder
    from tools.models.verifier import get_verifier

    embedder, verifier = get_embedder(), get_verifier()
    _, train, _ = load_data(DATA_DIR)
    queries = [p.b for p in load_pairs() if p.split == "fit"]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None).with_values(stores={"data_dir": Path(tmp)})
        t0 = time.perf_counter()
        for c in train:
            record(settings, embedder, {"id": f"train-{c.id}", "claim": c.text, "verdict": {"label": "Supported"}},
                   f"thread-{c.id}", "bench")
        fill = time.perf_counter() - t0
        llm = matching_llm(get_settings())
        find_earlier(settings, embedder, verifier, queries[0], llm=llm)  # the matrix loaded, the models warm
        kinds = (("the verifier alone", None), ("with the LLM where the verifier is unsure", llm))
        rows = [row(name, [lookup(settings, embedder, verifier, q, with_llm) for q in queries])
                for name, with_llm in kinds]
    m = machine()
    text = f"""# The whole "checked before" lookup, as a user waits for it

`python -m evals.bench.earlier_match` (commit {git_commit()}): {m["cpu"]} ({", ".join(m["flags"])}), {m["cpus"]} CPUs,
Python {m["python"]}.

{len(train)} SciFact train claims kept as checks (recorded in {fill:.1f} s); {len(queries)} queries, the fit split's
second claims. Each lookup embeds the claim, scans the kept checks and reads each candidate (cosine at least the
candidate filter, at most {CANDIDATES}) against the claim with the claim verifier, 6 pairs a candidate; the product
then asks the LLM, in both orders, about each candidate that the verifier leaves unsure. Both rows come from the same
run, one after the other.

| lookup | lookups | median | p95 | max | candidates read (median / max) | LLM calls (mean / max) | with a match |
|---|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}
"""
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
