"""kill -9 of the chat server during a check, then a restart on the same data: the thread reopens with what had
finished, says the check was interrupted, re-runs it on request, and neither SQLite store is corrupted.

The first server's LLM (scripted) takes minutes over the answer, so the kill lands while the answer is being
written: after the verdict and its sources were shown, before the answer."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from agent.followup.graph import build_thread_graph
from tests.e2e.chat_client import ThreadSession, login_cookie
from tests.e2e.conftest import CLAIM, PASSWORD, SCRIPT, USER
from tests.e2e.server import ChatServer
from tools.models.onnx_models import runtime_settings
from ui.chat.interrupted import RERUN
from ui.shared.untrusted import md

TIMEOUT_S = 300.0
SLOW_ANSWER_S = 600  # far longer than the test waits before the kill
EARLY = "**Judged:**"  # the verdict and its sources, shown while the LLM writes the answer


async def start_check(url: str) -> str:
    """Send the claim and return the thread id once its verdict is on screen (the answer is being written)."""
    async with ThreadSession(url, await login_cookie(url, USER, PASSWORD)) as chat:
        await chat.send(CLAIM, EARLY, TIMEOUT_S)
        return chat.thread_id


async def resume_and_rerun(url: str, thread_id: str) -> tuple[ThreadSession, str, str]:
    async with ThreadSession(url, await login_cookie(url, USER, PASSWORD), thread_id) as chat:
        notice = await chat.wait_for("was interrupted", TIMEOUT_S)
        await chat.press(RERUN)
        answer = await chat.wait_for("**Answer**", TIMEOUT_S)
        return chat, notice, answer


def stored_steps(db: Path, thread_id: str) -> list[tuple[str, str]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute('SELECT type, output FROM steps WHERE "threadId" = ?', (thread_id,)).fetchall()
    return [(str(t), str(o or "")) for t, o in rows]


def wait_until_stored(db: Path, thread_id: str, marker: str) -> None:
    """Chainlit writes a sent message to its database in the background: the kill waits until it is there."""
    deadline = time.monotonic() + TIMEOUT_S
    while not any(marker in out for _, out in stored_steps(db, thread_id)):
        assert time.monotonic() < deadline, f"the message with {marker!r} never reached {db}"
        time.sleep(0.2)


def integrity(db: Path) -> str:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def thread_state(db: Path, thread_id: str) -> Any:
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(db, check_same_thread=False) as conn:
        return build_thread_graph(SqliteSaver(conn)).get_state({"configurable": {"thread_id": thread_id}})


def test_kill_9_during_a_check_then_restart_reopens_the_thread_and_reruns_it(chat_env: dict[str, str], tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(Path(chat_env["DATA_DIR"]) / "index", data / "index")
    script = tmp_path / "script.json"
    slow = [{**rule, "delay_s": SLOW_ANSWER_S} if rule["when"] == "<evidence>" else rule for rule in SCRIPT]
    script.write_text(json.dumps(slow))
    env = {
        **chat_env,
        "DATA_DIR": str(data),
        "LLM_SCRIPT": str(script),
        "ONNX_CACHE_DIR": str(runtime_settings().cache_dir),
    }  # the models exported once for the whole session
    threads_db, chainlit_db = data / "threads.sqlite", data / "chainlit" / "chainlit.sqlite"

    first = ChatServer(env, data / "server.log").start()
    try:
        thread_id = asyncio.run(start_check(first.url))
        wait_until_stored(chainlit_db, thread_id, EARLY)
        first.kill9()
    finally:
        first.stop()
    assert integrity(threads_db) == "ok" and integrity(chainlit_db) == "ok"
    assert thread_state(threads_db, thread_id).next == ("check",)  # the started check is on record

    script.write_text(json.dumps(SCRIPT))  # after the restart the LLM answers at once
    second = ChatServer(env, data / "server.log").start()
    try:
        chat, notice, answer = asyncio.run(resume_and_rerun(second.url, thread_id))
    finally:
        second.stop()

    restored = [(s["type"], str(s.get("output") or "")) for s in chat.restored.get("steps", [])]
    assert ("user_message", CLAIM) in restored  # what had finished: the claim, and the verdict with its sources
    assert any(t == "assistant_message" and EARLY in out for t, out in restored)
    assert f"The check of “{md(CLAIM)}” was interrupted" in notice
    assert "Sources" in answer and not chat.errors
    state = thread_state(threads_db, thread_id)
    assert state.next == () and [r["claim"] for r in state.values["results"]] == [CLAIM]
    assert integrity(threads_db) == "ok" and integrity(chainlit_db) == "ok"
