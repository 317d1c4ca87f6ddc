"""A thread store (DATA_DIR/threads.sqlite) that SQLite cannot read: the chat's checkpointer moves it aside with a
timestamp, byte for byte, says so in the log, and starts an empty store in which threads run as usual. A sound store
is opened as it is."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.followup.graph import build_thread_graph
from agent.store.checkpoint import SQLITE_NAME, close_checkpointer, open_checkpointer
from tests.unit.test_followup import CHECK_RULES, CLAIM, VERIFIER_RULES

CFG = {"configurable": {"thread_id": "kept"}}


async def run_thread(settings: Any, deps: Any) -> dict[str, Any]:
    saver = await open_checkpointer(settings)
    try:
        graph = build_thread_graph(saver)
        before = dict((await graph.aget_state(CFG)).values or {})
        await graph.ainvoke({"message": CLAIM}, CFG, context=deps)
        return before
    finally:
        await close_checkpointer(saver)


def garbage_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[:100] = b"\x00" * 100  # the header SQLite checks first
    path.write_bytes(bytes(data))


def garbage_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")  # the header keeps the page size; pages 2 and on hold the tables
    data[page : len(data)] = b"\xa5" * (len(data) - page)
    path.write_bytes(bytes(data))


def text_file(path: Path) -> None:
    path.write_text("threads were here\n" * 50)


@pytest.mark.parametrize("damage", [garbage_header, garbage_pages, text_file], ids=["header", "pages", "not_sqlite"])
def test_damaged_thread_store_is_moved_aside_and_a_new_one_started(
    make_deps: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: Callable[[Path], None]
):
    deps = make_deps(CHECK_RULES, verifier_rules=VERIFIER_RULES)
    settings = deps.settings.with_values(stores={"data_dir": tmp_path})
    store = tmp_path / SQLITE_NAME
    assert asyncio.run(run_thread(settings, deps)) == {}  # a thread is stored
    damage(store)
    damaged = store.read_bytes()

    with caplog.at_level(logging.WARNING, logger="agent.store.checkpoint"):
        before = asyncio.run(run_thread(settings, deps))  # the chat starts and a thread runs
    assert before == {}  # an empty store: the damaged one is not read
    (aside,) = tmp_path.glob(f"{SQLITE_NAME}.damaged-*")
    assert re.fullmatch(rf"{SQLITE_NAME}\.damaged-\d{{8}}-\d{{6}}", aside.name)
    assert aside.read_bytes() == damaged  # nothing lost: the damaged file is kept as it was
    assert f"it was moved to {aside}" in caplog.text and "could not be read" in caplog.text
    again = asyncio.run(run_thread(settings, deps))  # the store that replaced it keeps its threads
    assert again["results"][0]["claim"] == CLAIM
    assert len(list(tmp_path.glob(f"{SQLITE_NAME}.damaged-*"))) == 1
