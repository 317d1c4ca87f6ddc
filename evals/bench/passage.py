"""Benchmark of a passage check on the embedded defaults: a 10-claim passage (the first ten cited claim sentences of
evals/passages/cited_passages.jsonl that the extraction rules take, joined as one paragraph without their
citations; the claims extracted from it are what both runs check), checked as a passage
(`check_passage`: every provisional verdict first, then the full checks), beside the same ten claims checked one by
one as a user pasting them in turn would (each `run_claim` to its end before the next). Reported: seconds to every
provisional verdict and to every answer, LLM calls and tokens, and the LLM's own decode and prompt rates in the same
run. Both runs check the same claims, so the second may find prompts in the LLM server's cache: `--order` says
which goes first, and the figures are worth reading in both orders.

    python -m evals.bench.passage --out evals/results [--order passage-first|single-first]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.passage.check import check_passage
from agent.passage.extract import extract
from agent.service import load_deps, run_claim
from agent.settings.app import get_settings
from evals.bench.ask import llm_rates
from evals.experiments import git_commit
from tools.text.claim_rules import checkable
from tools.text.passage import read_passage, strip_citations

PASSAGES = Path(__file__).resolve().parents[1] / "passages" / "cited_passages.jsonl"


def ten_claims(n: int = 10) -> list[str]:
    """The first ``n`` labelled-checkable sentences that the extraction rules also take, so the passage holds ``n``
    claims."""
    out: list[str] = []
    for line in PASSAGES.read_text(encoding="utf-8").splitlines():
        for s in json.loads(line)["sentences"]:
            text = strip_citations(s["text"])
            if s["checkable"] and checkable(text)[0] and len(out) < n:
                out.append(text)
    return out


def as_passage(deps: Any, text: str) -> dict[str, Any]:
    check = check_passage(text, deps)
    calls = sum(c.result.llm.calls for c in check.claims if c.result)
    tokens = sum(c.result.llm.completion_tokens for c in check.claims if c.result)
    return {"claims": len(check.claims), "checks": sum(c.same_as is None for c in check.claims),
            "all_provisional_s": check.timings["provisional"], "all_answers_s": check.timings["total"],
            "extract_s": check.timings["extract"], "llm_calls": calls, "completion_tokens": tokens}  # fmt: skip


def one_by_one(deps: Any, claims: list[str]) -> dict[str, Any]:
    """Each claim checked to its end before the next; the moment each one's first verdict appears."""
    t0 = time.perf_counter()
    provisional: dict[int, float] = {}
    calls = tokens = 0
    for i, claim in enumerate(claims):

        def seen(node: str, update: dict[str, Any], i: int = i) -> None:
            if node == "verdict":
                provisional.setdefault(i, round(time.perf_counter() - t0, 3))

        state = run_claim(claim, deps, on_update=seen)
        usage = state.get("usage")
        calls += usage.calls if usage else 0
        tokens += usage.completion_tokens if usage else 0
    return {
        "claims": len(claims),
        "all_provisional_s": max(provisional.values()),
        "all_answers_s": round(time.perf_counter() - t0, 3),
        "llm_calls": calls,
        "completion_tokens": tokens,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("evals/results"))
    ap.add_argument("--order", choices=("passage-first", "single-first"), default="passage-first")
    args = ap.parse_args(argv)
    settings = get_settings()
    deps = load_deps(settings)
    text = " ".join(ten_claims())
    rates_before = llm_rates(settings)
    claims = [c.claim for c in extract(read_passage(text), deps.llm)[0] if c.same_as is None]  # what both check
    if args.order == "passage-first":
        passage = as_passage(deps, text)
        single = one_by_one(deps, claims)
    else:
        single = one_by_one(deps, claims)
        passage = as_passage(deps, text)
    record = {
        "command": "python -m evals.bench.passage " + shlex.join(sys.argv[1:] if argv is None else argv),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "passage_text": text,
        "claims": claims,
        "passage": passage,
        "one_by_one": single,
        "ratio_all_provisional": round(single["all_provisional_s"] / passage["all_provisional_s"], 1),
        "ratio_all_answers": round(single["all_answers_s"] / passage["all_answers_s"], 2),
        "llm_rates_before": rates_before,
        "llm_rates_after": llm_rates(settings),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"bench_passage_{args.order}.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
