"""Benchmark of the whole "checked before" lookup as a user waits for it (agent.earlier.matches.find_earlier): the
claim embedded, the kept checks scanned, and the nearest kept claims read against it by the claim verifier. The
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

from agent.earlier.matches import find_earlier, record
from agent.settings.app import Settings
from evals.bench.kept_checks import machine
from evals.claim_matching.pairs import load_pairs
from evals.experiments import REPO_ROOT, git_commit
from evals.training.bearing_replay import DATA_DIR
from evals.training.data import load_data


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
        find_earlier(settings, embedder, verifier, queries[0])  # the matrix loaded, the models warm
        seconds, candidates, matched = [], [], 0
        for q in queries:
            t = time.perf_counter()
            found = find_earlier(settings, embedder, verifier, q)
            seconds.append(time.perf_counter() - t)
            candidates.append(len(found))
            matched += any(e.matched for e in found)
    ms = sorted(1000 * s for s in seconds)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    m = machine()
    cands = f"{statistics.median(candidates):.0f} / {max(candidates)}"
    text = f"""# The whole "checked before" lookup, as a user waits for it

`python -m evals.bench.earlier_match` (commit {git_commit()}): {m["cpu"]} ({", ".join(m["flags"])}), {m["cpus"]} CPUs,
Python {m["python"]}.

{len(train)} SciFact train claims kept as checks (recorded in {fill:.1f} s); {len(queries)} queries, the fit split's
second claims. Each lookup embeds the claim, scans the kept checks and reads each candidate (cosine at least the
candidate filter, at most 5) against the claim with the claim verifier, 6 pairs a candidate.

| lookups | median | p95 | max | candidates read (median / max) | lookups with a match |
|---:|---:|---:|---:|---:|---:|
| {len(ms)} | {statistics.median(ms):.0f} ms | {p95:.0f} ms | {ms[-1]:.0f} ms | {cands} | {matched} |
"""
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
