"""Benchmark of the "checked before" lookup as a user waits for it, stage by stage as the chat shows it
(ui/chat/earlier_view.py): first the claim embedded, the kept checks scanned and the nearest kept claims read against
it by the claim verifier (agent.earlier.matches.look_up), which shows a match, or the nearest unsure claim as a
candidate, or lets the check start; then, where the verifier leaves the nearest claim unsure, the LLM's reading of it
in both orders (``Lookup.read_by``), which turns the candidate into a match or not. The LLM is timed twice: right
after another lookup's reading (its prompt prefix cached by the server) and after an unrelated prompt (as after a
check, which evicts it). The store holds every SciFact train claim as a kept check (real claims, so that the
candidates and their number are what a user meets); the queries are the other side of the fit split's pairs
(evals/claim_matching/pairs.jsonl: paraphrases, opposites and related claims of those train claims).

    python -m evals.bench.earlier_match [--out evals/results/earlier_match_bench.md]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from agent.earlier.matches import CANDIDATES, look_up, matching_llm, record
from agent.llm.calls import invoke
from agent.settings.app import Settings, get_settings
from agent.state import StanceVerifier
from evals.bench.kept_checks import machine
from evals.claim_matching.pairs import load_pairs
from evals.experiments import REPO_ROOT, git_commit
from evals.training.bearing_replay import DATA_DIR
from evals.training.data import load_data
from tools.models.embedder import Embedder

UNRELATED = ("You summarise text.", "Summarise in one word: the weather was fine all week.")  # evicts the cached prefix


@dataclass(frozen=True)
class Timed:
    """One lookup: seconds until the verifier's reading is shown, and the LLM's seconds after it (None: not asked)."""

    shown_s: float
    llm_s: float | None
    matched: bool


def timed(settings: Settings, embedder: Embedder, verifier: StanceVerifier, claim: str,
          llm: BaseChatModel | None, evict: bool) -> Timed:
    t = time.perf_counter()
    looked = look_up(settings, embedder, verifier, claim)
    shown = time.perf_counter() - t
    matched = any(e.matched for e in looked.checks())
    if matched or not looked.unsure() or llm is None:
        return Timed(shown, None, matched)
    if evict:
        invoke(llm, *UNRELATED, max_tokens=1)
    t = time.perf_counter()
    read = looked.read_by(llm)
    return Timed(shown, time.perf_counter() - t, any(e.matched for e in read.checks()))


def ms(values: list[float]) -> tuple[str, str, str]:
    """Median, p95 and max of ``values`` (seconds) in ms."""
    out = sorted(1000 * v for v in values)
    return f"{statistics.median(out):.0f} ms", f"{out[int(0.95 * (len(out) - 1))]:.0f} ms", f"{out[-1]:.0f} ms"


def row(name: str, runs: list[Timed]) -> str:
    """One table row: until the verifier's reading shows, then the LLM's reading where it is asked."""
    shown = ms([r.shown_s for r in runs])
    asked = [r.shown_s + r.llm_s for r in runs if r.llm_s is not None]
    read = ms(asked) if asked else ("-", "-", "-")
    matched = sum(r.matched for r in runs)
    cells = [name, str(len(runs)), *shown, str(len(asked)), *read, str(matched)]
    return "| " + " | ".join(cells) + " |"


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
        timed(settings, embedder, verifier, queries[0], llm, True)  # the matrix loaded, the models warm
        kinds = (("the verifier alone", None, False), ("the LLM where the verifier is unsure, its prefix cached", llm,
                 False), ("the same, after an unrelated prompt (as after a check)", llm, True))
        rows = [row(name, [timed(settings, embedder, verifier, q, with_llm, evict) for q in queries])
                for name, with_llm, evict in kinds]
    m = machine()
    text = f"""# The whole "checked before" lookup, as a user waits for it

`python -m evals.bench.earlier_match` (commit {git_commit()}): {m["cpu"]} ({", ".join(m["flags"])}), {m["cpus"]} CPUs,
Python {m["python"]}.

{len(train)} SciFact train claims kept as checks (recorded in {fill:.1f} s); {len(queries)} queries, the fit split's
second claims. Each lookup embeds the claim, scans the kept checks and reads each candidate (cosine at least the
candidate filter, at most {CANDIDATES}) against the claim with the claim verifier, 6 pairs a candidate: then the chat
shows a match, or the nearest unsure kept claim as a candidate, or starts the check. Where no match is read and the
nearest claim is unsure, the LLM reads that pair in both orders, and the chat shows the match, or says the claim is
only related and starts the check. All rows come from the same run, one after the other.

| lookup | lookups | shown: median | p95 | max | the LLM asked | its reading done: median | p95 | max | with a match |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}
"""
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
