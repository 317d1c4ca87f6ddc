"""The data directory's disk fills up while the chat runs (a small tmpfs in the server's own mount namespace,
tests/fs_faults.py, filled from outside): a check then says in one message that it could not be saved, earlier
threads keep their results, neither SQLite store is damaged, and once there is space again the same thread checks
as usual."""

from __future__ import annotations

import asyncio
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from agent.followup.graph import build_thread_graph
from tests.e2e.chat_client import ChatSession, login_cookie
from tests.e2e.conftest import CLAIM, PASSWORD, USER
from tests.e2e.server import ChatServer
from tests.fs_faults import fill, small_disk
from tools.models.onnx_models import runtime_settings

TIMEOUT_S = 300.0
UNSAVED = "This turn could not be saved"


def copied(db: Path, into: Path) -> Path:
    """A copy of the SQLite file `db` (with its journal, if any) taken while the server is idle. SQLite resolves
    the /proc/<pid>/root link to the test's own root, so it cannot open the server's view of its disk itself."""
    into.mkdir(parents=True, exist_ok=True)
    for part in (db, db.with_name(db.name + "-journal"), db.with_name(db.name + "-wal")):
        if part.exists():
            shutil.copyfile(part, into / part.name)
    return into / db.name


def thread_results(db: Path, thread_id: str) -> list[dict[str, Any]]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(db, check_same_thread=False) as conn:
        state = build_thread_graph(SqliteSaver(conn)).get_state({"configurable": {"thread_id": thread_id}})
    return list(state.values.get("results", []))


def integrity(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


async def check_fill_check(server: ChatServer, data: Path, copies: Path) -> dict[str, Any]:
    assert server.proc is not None
    inside = Path(f"/proc/{server.proc.pid}/root") / data.relative_to("/")  # the server's view of its disk
    cookie = await login_cookie(server.url, USER, PASSWORD)
    async with ChatSession(server.url, cookie) as first, ChatSession(server.url, cookie) as second:
        before = await first.send(CLAIM, "Verdict:", TIMEOUT_S)
        await first.settled(TIMEOUT_S)  # the papers' contexts written: the server idle before the disk fills
        filler = fill(inside)
        unsaved = await second.send(CLAIM, UNSAVED, TIMEOUT_S)
        await second.settled(TIMEOUT_S)
        kept = thread_results(copied(inside / "threads.sqlite", copies / "full"), first.thread_id)
        filler.unlink()
        after = await second.send(CLAIM, "Verdict:", TIMEOUT_S)
        await second.settled(TIMEOUT_S)  # idle again before the stores are copied
        threads = copied(inside / "threads.sqlite", copies / "after")
        chainlit = copied(inside / "chainlit" / "chainlit.sqlite", copies / "after")
        errors = first.errors + second.errors
    return {
        "before": before,
        "unsaved": unsaved,
        "after": after,
        "kept": kept,
        "second": thread_results(threads, second.thread_id),
        "integrity": [integrity(threads), integrity(chainlit)],
        "errors": errors,
    }


def test_a_full_disk_while_the_chat_runs(chat_env: dict[str, str], tmp_path: Path):
    seed, data = tmp_path / "seed", tmp_path / "data"
    shutil.copytree(Path(chat_env["DATA_DIR"]) / "index", seed / "index")
    data.mkdir()
    env = {**chat_env, "DATA_DIR": str(data), "ONNX_CACHE_DIR": str(runtime_settings().cache_dir)}
    server = ChatServer(env, tmp_path / "server.log", prefix=small_disk(data, seed, 32, [])).start()
    try:
        seen = asyncio.run(check_fill_check(server, data, tmp_path / "copies"))
    finally:
        server.stop()
    assert "Sources" in seen["before"]
    shown = re.sub(r"\\(.)", r"\1", seen["unsaved"])  # the reason is escaped Markdown: read it as the chat shows it
    assert shown.startswith(f"⚠️ {UNSAVED}: the disk is full: free some space, then try again.")
    assert [r["claim"] for r in seen["kept"]] == [CLAIM]  # the first thread's check, untouched by the full disk
    assert "Sources" in seen["after"] and [r["claim"] for r in seen["second"]] == [CLAIM]
    assert seen["integrity"] == ["ok", "ok"]
    assert not seen["errors"], seen["errors"]  # no error event besides the one message
