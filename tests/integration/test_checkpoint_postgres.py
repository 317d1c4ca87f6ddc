"""Threads on Postgres (CHECKPOINT_URL): a real PostgreSQL server on loopback started by the test, the thread graph
with the scripted model, the real index of the tiny corpus and the trained verifier; the thread is reopened from a
fresh saver (a new pool, a new event loop, as after a restart) and continues from where it was."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.followup.graph import build_thread_graph
from agent.llm.scripted import ScriptedChatModel
from agent.settings.app import Settings
from agent.state import Deps
from agent.store.checkpoint import CheckpointUnavailableError, close_checkpointer, open_checkpointer
from tests.conftest import BEARS, CHOOSE_NOT, CONTEXT_RULE, STOP_SEARCHING, decompose_rule
from tests.integration.pg_server import PostgresServer, find_bin
from tests.ports import free_port

CLAIM = "The MMR vaccine causes autism."
RULES = [
    {"when": "Follow-up from the user", "reply": json.dumps({"action": "answer", "answer": "No link was found [1]."})},
    decompose_rule(["Is MMR vaccination linked to autism?"], "The MMR vaccine does not cause autism."),
    BEARS, CHOOSE_NOT, CONTEXT_RULE,
    {"when": "<evidence>", "reply": "Large studies found no link between MMR and autism [1]. Vaccines are "
     "dangerous [12]."},
    STOP_SEARCHING,
]


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    bin_dir = find_bin()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server binaries (initdb, postgres) found: `make test` installs Debian's postgresql")
    server = PostgresServer(bin_dir).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def deps(tmp_path: Path, tiny_index: Any, postgres: PostgresServer) -> Deps:
    from tools.models.verifier import get_verifier

    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path, "checkpoint_url": postgres.url}, llm={"provider": "scripted"}
    )
    return Deps(settings=settings, llm=ScriptedChatModel(rules=RULES), index=tiny_index, verifier=get_verifier())


def rows_for(url: str, thread_id: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread_id,)).fetchone()
        return int(row[0]) if row else 0


def test_thread_on_postgres_survives_a_fresh_saver(deps: Deps, postgres: PostgresServer):
    cfg = {"configurable": {"thread_id": "pg-thread"}}

    async def first_process() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        saver = await open_checkpointer(deps.settings)
        try:
            graph = build_thread_graph(saver)
            await graph.ainvoke({"message": CLAIM}, cfg, context=deps)
            await graph.ainvoke({"message": "what are the sources behind sentence 1?"}, cfg, context=deps)
            state = await graph.ainvoke({"message": "what did the cohort find?"}, cfg, context=deps)
            history = [dict(s.values) async for s in graph.aget_state_history(cfg)]
            return state, history
        finally:
            await close_checkpointer(saver)

    async def next_process() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
        saver = await open_checkpointer(deps.settings)  # set-up runs again on existing tables: a no-op
        try:
            graph = build_thread_graph(saver)
            values = dict((await graph.aget_state(cfg)).values)
            history = [dict(s.values) async for s in graph.aget_state_history(cfg)]
            more = await graph.ainvoke({"message": "sources for sentence 2"}, cfg, context=deps)
            return values, history, more
        finally:
            await close_checkpointer(saver)

    state, history = asyncio.run(first_process())
    (result,) = state["results"]
    assert result["claim"] == CLAIM and result["verdict"]["label"]
    assert result["sentences"][0]["citations"] == [1] and result["corrections"]  # the corrections are kept too
    assert state["reply"]["kind"] == "answer" and state["reply"]["sentences"][0]["citations"] == [1]
    assert rows_for(postgres.url, "pg-thread") == len(history) > 3  # every step is a row in Postgres
    assert not (deps.settings.stores.data_dir / "threads.sqlite").exists()  # and none went to the SQLite default

    values, again, more = asyncio.run(next_process())
    assert values == state  # the answer, its flags, sources and the last reply, exactly
    assert again == history
    assert more["reply"]["kind"] == "sources" and more["reply"]["sentence"] == 2  # the thread goes on
    assert more["results"] == state["results"]


def test_unreachable_postgres_is_a_clear_error(tmp_path: Path):
    url = f"postgresql://claimtrace@127.0.0.1:{free_port()}/postgres"  # nothing listens there
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path, "checkpoint_url": url}
    )
    with pytest.raises(CheckpointUnavailableError, match="cannot connect to CHECKPOINT_URL"):
        asyncio.run(open_checkpointer(settings))


async def until_trying_the_lock(conn: Any, timeout_s: float = 30.0) -> None:
    """Until another connection of the database has tried the checkpoint tables' setup lock (a waiting instance tries
    it again every agent.store.checkpoint.LOCK_POLL_S); a failed try leaves the lock's query as its last."""
    deadline = time.monotonic() + timeout_s
    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND position('pg_try_advisory_lock' in query) > 0"
    )
    while not conn.execute(query).fetchone()[0]:
        assert time.monotonic() < deadline, "no other instance tried the setup lock"
        await asyncio.sleep(0.05)


def test_an_instance_waiting_to_set_up_the_checkpoints_never_holds_up_the_one_setting_them_up(
    postgres: PostgresServer, tmp_path: Path
):
    """Two instances starting at once: while one holds the checkpoint tables' setup lock and its setup runs CREATE
    INDEX CONCURRENTLY (which waits for every older snapshot of the database), the other waits for the lock without
    a statement of its own running, so the index is built; then the waiting one sets up in turn. A blocking
    pg_advisory_lock there made both wait forever (tests/e2e/test_deployment.py, 2026-11-27)."""
    import psycopg

    from agent.store.checkpoint import CHECKPOINT_SCHEMA_LOCK

    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE setup_race")
    url = postgres.url.rsplit("/", 1)[0] + "/setup_race"
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path, "checkpoint_url": url}
    )

    async def race() -> None:
        with psycopg.connect(url, autocommit=True) as first:
            first.execute("SELECT pg_advisory_lock(%s)", (CHECKPOINT_SCHEMA_LOCK,))  # the first instance's setup
            second = asyncio.create_task(open_checkpointer(settings))
            await until_trying_the_lock(first)  # the second now waits for the lock: seen, not slept on
            first.execute("CREATE TABLE t (a int)")
            first.execute("SET statement_timeout = '10s'")
            await asyncio.to_thread(first.execute, "CREATE INDEX CONCURRENTLY t_a ON t (a)")
            assert not second.done()
        saver = await asyncio.wait_for(second, 30)  # the lock is free: the second sets up
        await close_checkpointer(saver)

    asyncio.run(race())
