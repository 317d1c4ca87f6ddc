"""Benchmark of a check with the embedded defaults, on SciFact dev claims: start-up, time to the first (provisional)
verdict and its sources, time to the judged verdict (after the LLM reads each source's direction), time to the final
checked answer, seconds per node, LLM calls and tokens per claim, and the LLM's own decode and prompt rates measured
in the same run (so a slower machine shows as such). The baseline, in the same run, is the verifier alone reading
direction (JUDGE_DIRECTION=verifier, the judge before the LLM's contrastive choice); the graph's own overhead is
measured with a scripted model.

The default and the baseline run on alternate claims of the same list (even and odd positions), never on the same
claim: the server's prompt cache would serve the second run of a claim from the first.

    python -m evals.bench.ask --claims 10 --out evals/results
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.graph import build_graph
from agent.llm.scripted import ScriptedChatModel
from agent.result import CheckResult
from agent.service import load_deps, run_claim
from agent.settings.app import Settings, get_settings
from agent.state import Deps
from evals.experiments import git_commit

GENERIC_SCRIPT = [
    {"when": "search questions", "reply": json.dumps({"questions": [], "opposite_claim": ""})},
    {"when": "Which statement does the evidence support?", "choose": " not "},
    {"reply": "The evidence is summarised in the sources [1]."},
]
STARTUP = (
    "import time; t = time.perf_counter(); "
    "from agent.service import load_deps; from agent.settings.app import get_settings; "
    "d = load_deps(get_settings()); d.index.embed(['warm']); d.verifier.predict([('a', 'b')]); "
    "print(round(time.perf_counter() - t, 3))"
)
RATE_PROMPT = "List the numbers from 1 to 60, separated by commas."


def dev_claims(path: Path, n: int) -> list[dict[str, Any]]:
    claims = [json.loads(line) for line in path.open()]
    return [c for c in claims if c["evidence"]][:n]


def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def run_one(claim: dict[str, Any], deps: Deps, graph: Any) -> dict[str, Any]:
    t0 = time.perf_counter()
    first: dict[str, float] = {}

    def seen(node: str, update: dict[str, Any]) -> None:
        if node == "verdict" and "verdict" not in first:
            first["verdict"] = time.perf_counter() - t0
        if node == "verdict" and update["verdict"].awaiting != "judgement" and "judged" not in first:
            first["judged"] = time.perf_counter() - t0

    result = CheckResult.from_state(run_claim(claim["claim"], deps, graph, on_update=seen)).model_dump(mode="json")
    seconds = time.perf_counter() - t0
    return {
        "id": claim["id"],
        "seconds_to_verdict": round(first.get("verdict", seconds), 3),
        "seconds_to_judged": round(first.get("judged", seconds), 3),
        "seconds": round(seconds, 3),
        "timings": result["timings"],
        "llm": result["llm"],
        "verdict": result["verdict"]["label"],
        "gold_in_sources": any(s["doc_id"] in claim["evidence"] for s in result["sources"]),
        "sentences": len(result["sentences"]),
        # papers the LLM did not read (DIRECTION_SECONDS ran out, or it was down): listed, never counted
        "unread_papers": sum(1 for s in result["silent"] if s.get("unread")),
        "papers": len({s["doc_id"] for s in result["sources"]}) + len(result["silent"]),
    }


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    to_verdict = [r["seconds_to_verdict"] for r in runs]
    judged = [r["seconds_to_judged"] for r in runs]
    final = [r["seconds"] for r in runs]
    nodes = sorted({n for r in runs for n in r["timings"] if n != "total"})
    return {
        "verdict_seconds": {"median": statistics.median(to_verdict), "p95": pct(to_verdict, 95)},
        "judged_seconds": {"median": statistics.median(judged), "p95": pct(judged, 95)},
        "final_seconds": {"median": statistics.median(final), "p95": pct(final, 95)},
        "node_seconds_median": {n: statistics.median(r["timings"].get(n, 0.0) for r in runs) for n in nodes},
        "llm_calls_per_claim": statistics.mean(r["llm"]["calls"] for r in runs),
        "prompt_tokens_per_claim": statistics.mean(r["llm"]["prompt_tokens"] for r in runs),
        "cached_prompt_tokens_per_claim": statistics.mean(r["llm"].get("cached_tokens", 0) for r in runs),
        "completion_tokens_per_claim": statistics.mean(r["llm"]["completion_tokens"] for r in runs),
        "gold_in_sources": sum(r["gold_in_sources"] for r in runs) / len(runs),
        "unread_papers": [sum(r.get("unread_papers", 0) for r in runs), sum(r.get("papers", 0) for r in runs)],
        "per_claim": runs,
    }


def llm_rates(settings: Settings) -> dict[str, float]:
    """The embedded server's own prompt and decode rates (tokens/s, from llama.cpp's timings) for a fixed request:
    what the LLM itself does on this machine now, whatever our code does."""
    import httpx

    from agent.llm.client import EmbeddedServer

    server = EmbeddedServer.get(settings)
    server.wait_ready()
    body = {
        "model": "bench",
        "messages": [{"role": "user", "content": f"{RATE_PROMPT} (run {time.time_ns()})"}],  # never a cached prompt
        "max_tokens": 96,
        "temperature": 0,
    }
    timings = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=300).json()["timings"]
    return {
        "decode_tokens_per_s": round(float(timings["predicted_per_second"]), 2),
        "prompt_tokens_per_s": round(float(timings["prompt_per_second"]), 2),
        "decoded_tokens": int(timings["predicted_n"]),
    }


def startup_seconds() -> dict[str, float]:
    """A fresh process: interpreter start to a usable check (index, verifier and embedder loaded, the LLM's chat
    model made; the embedded model loads in the background), and the same process's wall time."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True, timeout=600)
    wall = time.perf_counter() - t0
    return {"ready_in_process": float(out.stdout.strip().splitlines()[-1]), "wall_with_interpreter": round(wall, 3)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--claims", type=int, default=10)
    p.add_argument("--out", type=Path, default=Path("evals/results"))
    p.add_argument("--skip-llm", action="store_true", help="only start-up and the scripted-model overhead")
    args = p.parse_args(argv)

    # SciFact is judged against its own corpus: never search live sources or add their papers here
    settings = get_settings().with_values(live={"sources": "local"})
    claims = dev_claims(settings.stores.corpus_mirror / "claims_dev.jsonl", 2 * args.claims)
    mine, baseline = claims[0::2], claims[1::2]
    report: dict[str, Any] = {
        "command": "python -m evals.bench.ask " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "git_commit": git_commit(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_1min": os.getloadavg()[0]},
        "claims": len(mine),
        "startup_seconds": startup_seconds(),
    }
    deps = load_deps(settings)
    graph = build_graph()
    scripted = Deps(settings=settings, llm=ScriptedChatModel(rules=GENERIC_SCRIPT), index=deps.index,
                    verifier=deps.verifier)
    run_one(claims[0], scripted, graph)  # warm-up: first embedder / verifier call
    report["scripted"] = summary([run_one(c, scripted, graph) for c in mine])
    if not args.skip_llm:
        report["llm_rates_before"] = llm_rates(settings)
        report["embedded"] = summary([run_one(c, deps, graph) for c in mine])
        alone = Deps(settings=settings.with_values(judge={"direction": "verifier"}), llm=deps.llm,
                     index=deps.index, verifier=deps.verifier)
        report["embedded_verifier_direction"] = summary([run_one(c, alone, graph) for c in baseline])
        report["llm_rates_after"] = llm_rates(settings)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_ask.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "bench_ask.md").write_text(markdown(report))
    print(markdown(report))
    return 0


def markdown(r: dict[str, Any]) -> str:
    s = r["startup_seconds"]
    lines = [
        f"# Time per check, SciFact dev ({r['claims']} claims with evidence per run, embedded defaults)",
        "",
        f"`{r['command']}` — {r['date']}, commit {r['git_commit']}; {r['machine']['cpus']} CPUs, load "
        f"{r['machine']['load_1min']:.2f} at the start.",
        "",
        f"Start-up: {s['ready_in_process']:.2f} s from import to a usable check in a fresh process "
        f"({s['wall_with_interpreter']:.2f} s with the interpreter); the embedded model loads in the background.",
    ]
    for key in ("llm_rates_before", "llm_rates_after"):
        if key in r:
            x = r[key]
            lines.append(
                f"LLM {key.split('_')[-1]} the claims: decode {x['decode_tokens_per_s']} tokens/s, prompt "
                f"{x['prompt_tokens_per_s']} tokens/s."
            )
    lines += [
        "",
        "| run | to first verdict median / p95 (s) | to judged verdict median / p95 (s) | final median / p95 (s) | "
        "LLM calls | prompt (cached) + completion tokens | gold in sources | papers not read for lack of time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    names = {
        "embedded": "default (the verifier's gate, the LLM's direction, then the answer)",
        "embedded_verifier_direction": "JUDGE_DIRECTION=verifier (baseline: the verifier alone reads direction)",
        "scripted": "scripted model (the graph without the LLM)",
    }
    for key, name in names.items():
        if key not in r:
            continue
        m = r[key]
        lines.append(
            f"| {name} | {m['verdict_seconds']['median']:.2f} / {m['verdict_seconds']['p95']:.2f} | "
            f"{m['judged_seconds']['median']:.2f} / {m['judged_seconds']['p95']:.2f} | "
            f"{m['final_seconds']['median']:.2f} / {m['final_seconds']['p95']:.2f} | {m['llm_calls_per_claim']:.2f} | "
            f"{m['prompt_tokens_per_claim']:.0f} ({m['cached_prompt_tokens_per_claim']:.0f}) + "
            f"{m['completion_tokens_per_claim']:.0f} | {m['gold_in_sources']:.2f} | "
            f"{m['unread_papers'][0]} of {m['unread_papers'][1]} |"
        )
    for key in ("embedded", "embedded_verifier_direction"):
        if key in r:
            nodes = ", ".join(f"{n} {v:.2f}" for n, v in r[key]["node_seconds_median"].items() if v >= 0.005)
            lines += ["", f"Median seconds per node, {names[key]}: {nodes}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
