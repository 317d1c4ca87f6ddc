"""`claimtrace eval scifact --split dev|train [--limit N] [--out DIR] [--preset NAME] [--retrieval-only]`.

Wired into the `claimtrace` command line (ui/terminal/cli.py) by `add_eval_parser(sub)` and `cmd_eval`; also runnable
alone as `python -m evals.scifact.cli scifact ...`. Imports stay light here, so that `claimtrace ask` loads no
evaluation code: the evaluation loads its modules when it runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent.errors import EXIT_INPUT, CliError
from evals.scifact.data import RESULTS_DIR, SPLITS


def add_eval_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `eval scifact ...` to the `claimtrace` subcommands; returns the `eval` parser."""
    ev: argparse.ArgumentParser = subparsers.add_parser("eval", help="evaluate claimtrace on a benchmark")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True, metavar="BENCHMARK")
    sf = ev_sub.add_parser(
        "scifact",
        help="SciFact claims: official abstract/sentence metrics, retrieval, verifier, faithfulness, cost",
        description="Runs claimtrace on SciFact claims, prints a table and writes DIR/<name>.json, .md and .png "
        "(plus per-claim predictions as gzip-compressed JSONL; the full run resumes from them).",
    )
    sf.add_argument("--split", choices=SPLITS, default="dev", help="claims to evaluate (default dev)")
    sf.add_argument("--limit", type=int, help="only the first N claims of the split")
    sf.add_argument("--out", type=Path, default=RESULTS_DIR, help="output folder (default evals/results)")
    sf.add_argument(
        "--retrieval-only",
        action="store_true",
        help="retrieval alone with the claim as the only query (no LLM, minutes), with BM25 and dense baselines",
    )
    sf.add_argument(
        "--judgement-only",
        action="store_true",
        help="the graph through the judged verdict, without the answer (labels and verdicts as the product gives them)",
    )
    sf.add_argument("--preset", metavar="NAME", help="named settings preset (agent/presets/NAME.json) for this run")
    sf.add_argument("--no-progress", action="store_true", help="no progress bar")
    return ev


def cmd_eval(args: argparse.Namespace) -> int:
    from agent.errors import EXIT_UNAVAILABLE
    from evals.scifact import report
    from evals.scifact.run import EvalOptions, evaluate, write_outputs

    if args.eval_command != "scifact":  # pragma: no cover - argparse only offers scifact
        raise CliError(f"unknown benchmark {args.eval_command!r}", EXIT_INPUT)
    if args.retrieval_only and args.judgement_only:
        raise CliError("--retrieval-only and --judgement-only exclude each other: choose one", EXIT_INPUT)
    opts = EvalOptions(
        split=args.split,
        limit=args.limit,
        out=args.out,
        retrieval_only=args.retrieval_only,
        judgement_only=args.judgement_only,
        progress=not getattr(args, "no_progress", False),
        preset=args.preset,
    )
    try:
        result, failed = evaluate(opts)
        paths = write_outputs(result, opts.out, opts.name)
    except OSError as e:
        raise CliError(f"cannot write results to {opts.out}: {e.strerror}", EXIT_INPUT) from e
    print(report.table(result))
    for path in paths:
        print(f"wrote {path}", file=sys.stderr)
    if failed:
        raise CliError(
            f"{len(failed)} claim(s) failed ({failed[:10]}); the metrics above leave them out. "
            "Rerun the same command to retry them (finished claims are kept)",
            EXIT_UNAVAILABLE,
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m evals.scifact.cli scifact ...` (the same as `claimtrace eval scifact ...`)."""
    parser = argparse.ArgumentParser(prog="python -m evals.scifact.cli")
    sub = parser.add_subparsers(dest="command", required=True)
    add_eval_parser(sub)
    args = parser.parse_args(["eval", *(sys.argv[1:] if argv is None else argv)])
    try:
        return cmd_eval(args)
    except CliError as e:
        print(f"claimtrace: {e}", file=sys.stderr)
        return e.code


if __name__ == "__main__":
    sys.exit(main())
