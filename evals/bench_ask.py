"""Benchmark of `ask`: wall time, LLM calls and tokens per claim on SciFact dev claims, with the embedded LLM;
and the graph's own overhead (everything but the LLM) with the scripted model.

    python -m evals.bench_ask --claims 5 --out evals/results
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from agent.graph import build_graph
from agent.result import CheckResult
from agent.scripted import ScriptedChatModel
from agent.service import load_deps, run_claim
from agent.settings import get_settings
from agent.state import Deps

GENERIC_SCRIPT = [
    {"when": "search questions", "reply": json.dumps({"questions": [], "opposite_claim": ""})},
    {"reply": "The evidence is summarised in the sources [1]."},
]


def dev_claims(path: Path, n: int) -> list[dict[str, Any]]:
    claims = [json.loads(line) for line in path.open()]
    return [c for c in claims if c["evidence"]][:n]


def run_one(claim: dict[str, Any], deps: Deps, graph: Any) -> dict[str, Any]:
    t0 = time.perf_counter()
    result = CheckResult.from_state(run_claim(claim["claim"], deps, graph)).model_dump(mode="json")
    seconds = time.perf_counter() - t0
    docs = deps.index.docs
    valid = all(docs[s["doc_id"]].sentences[s["sentence_index"]] == s["sentence"] for s in result["sources"])
    return {
        "id": claim["id"],
        "claim": claim["claim"],
        "seconds": round(seconds, 2),
        "timings": result["timings"],
        "llm": result["llm"],
        "gold_docs": sorted(claim["evidence"]),
        "gold_in_sources": any(s["doc_id"] in claim["evidence"] for s in result["sources"]),
        "citations_resolve_verbatim": valid,
        "verdict": result["verdict"]["label"],
        "flagged_sentences": sum(s["flagged"] for s in result["sentences"]),
        "sentences": len(result["sentences"]),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--claims", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("evals/results"))
    p.add_argument("--skip-llm", action="store_true", help="only the scripted-model overhead")
    args = p.parse_args(argv)

    # SciFact is judged against its own corpus: never search live sources or add their papers here
    settings = get_settings().with_values(live={"sources": "local"})
    claims = dev_claims(settings.stores.corpus_mirror / "claims_dev.jsonl", args.claims)
    graph = build_graph()
    report: dict[str, Any] = {
        "command": "python -m evals.bench_ask " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "machine": {"cpus": 2, "python": platform.python_version()},
    }

    t0 = time.perf_counter()
    deps = load_deps(settings)
    report["load_seconds"] = round(time.perf_counter() - t0, 2)
    scripted = Deps(
        settings=settings,
        llm=ScriptedChatModel(rules=GENERIC_SCRIPT),
        index=deps.index,
        verifier=deps.verifier,
    )
    run_one(claims[0], scripted, graph)  # warm-up: first embedder / verifier call
    overhead = [run_one(c, scripted, graph) for c in claims]
    report["scripted"] = {
        "median_seconds": statistics.median(r["seconds"] for r in overhead),
        "per_claim": overhead,
    }
    if not args.skip_llm:
        runs = [run_one(c, deps, graph) for c in claims]
        report["embedded"] = {
            "median_seconds": statistics.median(r["seconds"] for r in runs),
            "llm_calls_per_claim": statistics.mean(r["llm"]["calls"] for r in runs),
            "prompt_tokens_per_claim": statistics.mean(r["llm"]["prompt_tokens"] for r in runs),
            "completion_tokens_per_claim": statistics.mean(r["llm"]["completion_tokens"] for r in runs),
            "gold_in_sources": sum(r["gold_in_sources"] for r in runs) / len(runs),
            "per_claim": runs,
        }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_ask.json").write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k not in ("scripted", "embedded")}, indent=2))
    print("scripted median s/claim:", report["scripted"]["median_seconds"])
    if "embedded" in report:
        e = report["embedded"]
        print(
            f"embedded median s/claim: {e['median_seconds']}, calls {e['llm_calls_per_claim']}, "
            f"tokens {e['prompt_tokens_per_claim']}+{e['completion_tokens_per_claim']}, "
            f"gold in sources {e['gold_in_sources']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
