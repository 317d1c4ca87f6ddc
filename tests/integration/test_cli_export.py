"""`claimtrace ask` keeps its check as a thread; `claimtrace threads` lists it and `claimtrace export` writes it in
each format (real subprocesses, scripted LLM, real index of the tiny corpus); every bad request ends with one line
and an exit code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import bibtexparser
import rispy
from markdown_it import MarkdownIt

from agent.result import CheckResult
from tests.integration.test_cli import CLAIM, assert_one_line_error, cli_env, indexed_env, run  # noqa: F401
from tests.ports import free_port

SECOND = "Vitamin D supplementation prevents fractures in older adults."
KEPT = re.compile(r"Kept as thread ([0-9a-f-]{36}) ")


def ask(claim: str, env: dict[str, str]) -> tuple[str, dict[str, Any]]:
    proc = run(["ask", claim, "--json"], env)
    assert proc.returncode == 0, proc.stderr
    kept = KEPT.search(proc.stderr)
    assert kept, proc.stderr
    return kept.group(1), json.loads(proc.stdout)


def export(args: list[str], env: dict[str, str]) -> str:
    proc = run(["export", *args], env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_ask_then_threads_then_export_in_every_format(indexed_env: dict[str, str], tmp_path: Path):  # noqa: F811
    env = indexed_env
    empty = run(["threads"], env)
    assert empty.returncode == 0 and empty.stdout == "" and "holds no checks yet" in empty.stderr
    assert_one_line_error(run(["export", "--last", "--format", "md"], env), 3, "holds no checks yet")

    first_id, first = ask(CLAIM, env)
    second_id, second = ask(SECOND, env)
    listed = run(["threads"], env)
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert rows[0].split()[:2] == ["ID", "UPDATED"]
    assert [r.split()[0] for r in rows[1:]] == [second_id, first_id]  # newest first
    assert rows[2].split()[3] == "1" and rows[2].endswith(CLAIM)

    as_json = export(["--last", "--format", "json"], env)
    assert CheckResult.model_validate_json(as_json) == CheckResult.model_validate(second)
    assert "consensus" in json.loads(as_json)

    chosen = [first_id[:8], "--check", "1"]
    md = export([*chosen, "--format", "md"], env)
    shown = "".join(t.content for block in MarkdownIt().parse(md) for t in block.children or [] if t.type == "text")
    titles = {s["title"] for s in first["sources"]}
    assert md.startswith("# claimtrace check") and CLAIM in shown
    assert titles and all(t in shown for t in titles)

    bib = bibtexparser.parse_string(export([*chosen, "--format", "bib"], env))
    assert not bib.failed_blocks and len(bib.entries) == len({s["doc_id"] for s in first["sources"]})
    ris = rispy.loads(export([*chosen, "--format", "ris"], env))
    assert {r["title"] for r in ris} == titles and all(r["type_of_reference"] == "JOUR" for r in ris)

    out = tmp_path / "check.json"
    proc = run(["export", first_id, "--format", "json", "--out", str(out)], env)
    assert proc.returncode == 0 and proc.stdout == "" and f"written to {out}" in proc.stderr
    assert CheckResult.model_validate_json(out.read_text()) == CheckResult.model_validate(first)


def test_bad_export_requests(indexed_env: dict[str, str], tmp_path: Path):  # noqa: F811
    env = indexed_env
    thread_id, _ = ask(CLAIM, env)
    assert_one_line_error(run(["export", "0123456789", "--format", "md"], env), 2, "no thread '0123456789'")
    assert_one_line_error(run(["export", thread_id, "--check", "2", "--format", "md"], env), 2,
                          f"thread {thread_id} holds 1 check(s); --check must be 1 to 1")
    assert_one_line_error(run(["export", thread_id, "--check", "0", "--format", "md"], env), 2, "at least 1")
    assert_one_line_error(run(["export", "--format", "md"], env), 2, "name a thread id or give --last")
    assert_one_line_error(run(["export", thread_id, "--last", "--format", "md"], env), 2, "not both")
    assert_one_line_error(run(["export", "--last", "--format", "pdf"], env), 2, "invalid choice: 'pdf'")
    assert_one_line_error(run(["export", "--last"], env), 2, "--format")
    missing = tmp_path / "no such folder" / "x.md"
    assert_one_line_error(run(["export", "--last", "--format", "md", "--out", str(missing)], env), 2,
                          f"cannot write {missing}: No such file or directory")
    assert_one_line_error(run(["export", "--last", "--format", "md", "--out", str(tmp_path)], env), 2,
                          f"cannot write {tmp_path}: Is a directory")


def test_a_thread_store_that_cannot_be_reached(indexed_env: dict[str, str]):  # noqa: F811
    """The check is printed all the same, with one warning; listing and export say why they cannot read."""
    env = {**indexed_env, "CHECKPOINT_URL": f"postgresql://claimtrace@127.0.0.1:{free_port()}/threads"}
    proc = run(["ask", CLAIM, "--json"], env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["claim"] == CLAIM
    lines = proc.stderr.splitlines()
    warnings = [line for line in lines if line.startswith("claimtrace: warning")]
    assert len(warnings) == 1 and "not kept in the thread store (cannot connect to CHECKPOINT_URL" in warnings[0]
    assert lines[-1] == warnings[0] and "Kept as thread" not in proc.stderr  # psycopg's reason on the same line
    assert_one_line_error(run(["threads"], env), 3, "cannot read the thread store: cannot connect to CHECKPOINT_URL")
    assert_one_line_error(run(["export", "--last", "--format", "md"], env), 3, "cannot connect to CHECKPOINT_URL")
