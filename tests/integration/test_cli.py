"""The `claimtrace` command as a user runs it (subprocess): index, ask, and every bad-input rule."""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BEARS, CHOOSE_NOT, CONTEXT_RULE, FIXTURES
from tests.ports import free_port

CLAIM = "The MMR vaccine causes autism."
SCRIPT = [
    {
        "when": "search questions",
        "reply": json.dumps(
            {
                "questions": ["Is MMR vaccination associated with autism risk?"],
                "opposite_claim": "MMR does not cause autism.",
            }
        ),
    },
    BEARS, CHOOSE_NOT, CONTEXT_RULE,
    {"when": "Translate the claim into English", "reply": json.dumps({"english": "The MMR vaccine causes autism."})},
    {"when": "<draft>", "reply": "The verdict is that MMR vaccination is safe."},  # its rewrite rules on it again
    {
        # one sentence per paper: paper 1's rules on the verdict instead of reporting a finding
        "when": "<evidence>",
        "reply": "1: The verdict is that MMR vaccination is safe.\n99: See also.",
    },
    {  # a thin first search is searched again (agent/nodes/reformulate.py)
        "when": "found too little",
        "reply": json.dumps({"action": "search", "queries": ["measles mumps rubella vaccination autism cohort"]}),
    },
]


def run(
    args: list[str], env: dict[str, str], stdin: bytes | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "ui.terminal.cli", *args],
        input=stdin,
        env=env,
        capture_output=True,
        timeout=timeout,
        cwd=Path(__file__).resolve().parents[2],
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def assert_one_line_error(proc: subprocess.CompletedProcess[str], code: int, text: str) -> None:
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("claimtrace: ") and text in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def assert_answered_without_llm(proc: subprocess.CompletedProcess[str], why: str) -> None:
    """A dead or slow LLM costs the search questions, the judge's reading and the written answer, not the check: the
    claim and its negation are searched, every source found is listed with the verifier's reading as not read by
    the LLM (the verifier alone does not stand in for it), and the verdict says it is provisional, with a note
    saying why."""
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["queries"] == [CLAIM, f"It is not true that {CLAIM[0].lower()}{CLAIM[1:]}"]
    assert any(why in note for note in result["notes"]), result["notes"]
    unread = [s for s in result["silent"] if s["unread"]]
    assert unread and result["assessments"] == [] and result["verdict"]["unread"] == len(unread)
    assert result["answer"].startswith("Not enough evidence so far (provisional): the LLM did not read")
    assert "Traceback" not in proc.stderr


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    data = tmp_path_factory.mktemp("data")
    script = data / "script.json"
    script.write_text(json.dumps(SCRIPT))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_", "CHROMA_", "CORPUS_"))}
    env.update({"DATA_DIR": str(data), "LLM_PROVIDER": "scripted", "LLM_SCRIPT": str(script)})
    return env


@pytest.fixture(scope="module")
def indexed_env(cli_env: dict[str, str]) -> dict[str, str]:
    proc = run(["index", "--corpus", str(FIXTURES / "malformed_corpus.jsonl")], cli_env)
    assert proc.returncode == 0, proc.stderr
    proc = run(["index", "--corpus", str(FIXTURES / "tiny_corpus.jsonl")], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "8 abstracts" in proc.stdout
    return cli_env


def test_index_reports_malformed_lines_and_skips_rebuild(cli_env: dict[str, str], tmp_path: Path):
    env = {**cli_env, "DATA_DIR": str(tmp_path)}
    proc = run(["index", "--corpus", str(FIXTURES / "malformed_corpus.jsonl")], env)
    assert proc.returncode == 0, proc.stderr
    assert "2 abstracts" in proc.stdout and "5 malformed line(s) skipped" in proc.stdout
    assert "malformed_corpus.jsonl:2: skipped malformed line" in proc.stderr
    again = run(["index", "--corpus", str(FIXTURES / "malformed_corpus.jsonl")], env)
    assert "index up to date" in again.stdout


def test_ask_json_contract(indexed_env: dict[str, str]):
    proc = run(["ask", CLAIM, "--json"], indexed_env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["claim"] == CLAIM
    assert result["verdict"]["label"] in {
        "Generally supported",
        "Generally refuted",
        "Disputed but leaning towards supported",
        "Disputed but leaning towards refuted",
        "Generally controversial",
        "Not enough evidence",
    }
    # per source the LLM reads, two calls for whether it bears (on the claim, on its opposite) and, when it does, two
    # for its direction; the answer (no search questions by default); then one rewrite per flagged sentence that
    # cites an existing source; then, after the answer, one context per paper shown
    aside = sum(s["reason"].startswith("Not counted") for s in result["silent"])
    directions = 4 * sum(a["judged_by"] == "verifier+llm" for a in result["assessments"]) + 2 * aside
    rewrites = sum(c["action"] != "dropped" for c in result["corrections"])
    papers = len({s["n"] for s in result["sources"]})
    assert result["llm"]["calls"] == directions + 1 + rewrites + papers
    assert papers and all(s["supplement"] or s["supplement_note"].startswith("the abstract does not support it")
                          for s in result["sources"])
    assert "decompose" not in result["timings"] and len(result["queries"]) == 2
    ns = {s["n"] for s in result["sources"]}
    for s in result["sentences"]:
        assert set(s["citations"]) <= ns
    assert "See also" not in result["original_answer"]  # line 99 names no paper: it is never read
    replaced = result["corrections"][-1]  # flagged, rewritten, flagged again: the cited finding is quoted instead
    assert replaced["original"] == "The verdict is that MMR vaccination is safe [1]."
    assert replaced["action"] == "replaced" and "rules on the claim" in replaced["reason"]
    assert "verdict is that" not in result["answer"]
    assert "The verdict is that MMR vaccination is safe [1]." in result["original_answer"]
    # the consensus over every source read, its counts those of the verdict's sides
    c = result["consensus"]
    assert c["sources"] == len(result["assessments"]) + len(result["silent"])
    assert (c["supports"]["count"], c["contradicts"]["count"]) == (result["verdict"]["supporting"],
                                                                   result["verdict"]["contradicting"])
    assert result["run"]["checked_at"] and result["run"]["models"]["llm"].endswith("(scripted)")


def test_ask_readable(indexed_env: dict[str, str]):
    proc = run(["ask", CLAIM], indexed_env)
    assert proc.returncode == 0, proc.stderr
    assert "Answer:" in proc.stdout and "Verdict:" in proc.stdout
    assert "Self-correction" in proc.stdout and "The verdict is that" in proc.stdout  # the replaced sentence


def test_ask_reads_stdin_and_notes_other_languages(indexed_env: dict[str, str]):
    proc = run(["ask", "-", "--json"], indexed_env, stdin="Вакцина MMR вызывает аутизм.".encode())
    assert proc.returncode == 0, proc.stderr
    assert any("English" in n for n in json.loads(proc.stdout)["notes"])


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["ask", ""], None, "the claim is empty"),
        (["ask", "   \n\t "], None, "the claim is empty"),
        (["ask", "x" * 2001], None, "2001 characters long; the limit is 2000"),
        (["ask", "-"], b"\xff\xfe\xfa claim", "not valid UTF-8"),
        (["ask", "-"], b"vaccines \x00\x01 autism", "binary control characters"),
        (["ask", CLAIM, "--frobnicate"], None, "unrecognized arguments: --frobnicate"),
        (["frobnicate"], None, "invalid choice"),
    ],
)
def test_bad_input_one_clear_line(indexed_env: dict[str, str], args: list[str], stdin: bytes | None, message: str):
    assert_one_line_error(run(args, indexed_env, stdin=stdin), 2, message)


def test_missing_index(cli_env: dict[str, str], tmp_path: Path):
    proc = run(["ask", CLAIM], {**cli_env, "DATA_DIR": str(tmp_path)})
    assert_one_line_error(proc, 3, "run `claimtrace index` first")



def test_llm_unreachable(indexed_env: dict[str, str]):
    env = {
        **indexed_env,
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
        "LLM_MAX_RETRIES": "0",
    }
    assert_answered_without_llm(run(["ask", CLAIM, "--json"], env), "the LLM is unreachable")


@pytest.fixture
def slow_llm() -> Iterator[str]:
    """A loopback server that accepts chat requests and never answers in time."""

    class Slow(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            time.sleep(5)
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_llm_timeout(indexed_env: dict[str, str], slow_llm: str):
    env = {
        **indexed_env,
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": slow_llm,
        "LLM_TIMEOUT": "1",
        "LLM_MAX_RETRIES": "0",
    }
    assert_answered_without_llm(run(["ask", CLAIM, "--json"], env), "did not answer in time")


def test_ask_offers_a_claim_checked_before_instead_of_checking_it_again(indexed_env: dict[str, str]):
    """With EARLIER_CHECKS on (tests/conftest.py turns it off for the rest), a kept check is found again by its
    claim (the real embedder and verifier): ask prints it and checks nothing; --fresh checks, linked to it."""
    env = {**indexed_env, "EARLIER_CHECKS": "true"}
    first = run(["ask", CLAIM, "--json"], env)
    assert first.returncode == 0, first.stderr
    kept = json.loads(first.stdout)
    thread = re.search(r"Kept as thread ([0-9a-f-]+)", first.stderr)
    assert thread, first.stderr

    again = run(["ask", f"  {CLAIM.upper()}", "--json"], env)
    assert again.returncode == 0, again.stderr
    offered = json.loads(again.stdout)
    assert offered["checked"] is False and "Kept as thread" not in again.stderr  # nothing checked, nothing kept
    same = [e for e in offered["earlier"] if e["relation"] == "same"]
    assert [(e["thread_id"], e["check_id"], e["verdict"]) for e in same][:1] == [
        (thread.group(1), kept["id"], kept["verdict"]["label"])]

    readable = run(["ask", CLAIM], env)
    assert readable.stdout.startswith("The same claim was checked before. Checked on ")
    assert f"claimtrace export {thread.group(1)} --format md" in readable.stdout

    fresh = run(["ask", CLAIM, "--json", "--fresh"], env)
    assert fresh.returncode == 0, fresh.stderr
    assert thread.group(1) in {e["thread_id"] for e in json.loads(fresh.stdout)["earlier"]}


def test_a_claim_in_german_is_checked_in_english_and_keeps_the_users_words(indexed_env: dict[str, str]):
    german = "Der MMR-Impfstoff verursacht Autismus."
    proc = run(["ask", german, "--json"], indexed_env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["claim"], result["asked"], result["language"]) == (CLAIM, german, "de")
    assert result["verdict"]["label"] and result["sources"]  # searched in English: the tiny corpus's MMR papers
    readable = run(["ask", german], indexed_env)  # printed for a person in the claim's language
    assert f"Geprüft als: {CLAIM} (vom LLM aus Ihren Worten übersetzt)" in readable.stderr
    assert "\nUrteil: " in readable.stdout and "\nVerdict: " not in readable.stdout
    english = run(["ask", german, "--lang", "en"], indexed_env)
    assert f"Checked as: {CLAIM} (translated from your words by the LLM)" in english.stderr
    assert "\nVerdict: " in english.stdout
    report = run(["export", "--last", "--format", "md"], indexed_env)  # the report speaks the claim's language
    assert report.returncode == 0 and "\n## Urteil\n" in report.stdout and "**Wie gefragt (Deutsch):**" in report.stdout
    asked_english = run(["export", "--last", "--format", "md", "--lang", "en"], indexed_env)
    assert "\n## Verdict\n" in asked_english.stdout and "**As asked (German):**" in asked_english.stdout
