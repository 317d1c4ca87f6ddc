"""20 chat sessions at once against one server on loopback: every one answered, no error; p50/p95 time to answer.

CLAIMTRACE_E2E_RECORD=1 also writes evals/results/ui_concurrency.json (the committed measurement)."""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

from tests.e2e.chat_client import ask, login_cookie
from tests.e2e.conftest import CLAIM, PASSWORD, USER
from tests.e2e.report import percentile, write_report
from tests.e2e.server import ChatServer
from ui.chat.serve import HEARTBEAT_TIMEOUT_S

SESSIONS = 20
TIMEOUT_S = 600.0


async def run_sessions(url: str) -> list[dict[str, object]]:
    cookie = await login_cookie(url, USER, PASSWORD)
    return await asyncio.gather(*(ask(url, cookie, CLAIM, "Verdict:", TIMEOUT_S) for _ in range(SESSIONS)))


def test_twenty_simultaneous_sessions(server: ChatServer, tmp_path: Path):
    t0 = time.perf_counter()
    results = asyncio.run(run_sessions(server.url))
    wall = time.perf_counter() - t0
    assert len(results) == SESSIONS
    assert all(not r["errors"] for r in results), [r["errors"] for r in results]
    assert all("Sources" in str(r["output"]) for r in results)
    # a busy server does not drop a socket after socket.io's default 20 s without a heartbeat answer
    assert {r["heartbeat_s"] for r in results} == {HEARTBEAT_TIMEOUT_S}
    seconds = [float(r["seconds"]) for r in results]  # type: ignore[arg-type]
    report = {
        "sessions": SESSIONS,
        "answered": len(results),
        "errors": 0,
        "p50_s": round(statistics.median(seconds), 2),
        "p95_s": round(percentile(seconds, 0.95), 2),
        "max_s": round(max(seconds), 2),
        "wall_s": round(wall, 2),
        "setup": "scripted LLM, real index of tests/fixtures/tiny_corpus.jsonl, real verifier; one `claimtrace ui` "
        "server on 127.0.0.1; socket.io clients, one new thread each",
    }
    write_report("ui_concurrency.json", report, "tests/e2e/test_concurrency.py", tmp_path)
