"""The thread checkpointer: a SQLite file in DATA_DIR by default, Postgres when CHECKPOINT_URL (or DATABASE_URL) is
given.

Opened once per process (the chat UI, agent/followup) and kept open; every write is committed, so a thread survives a
killed server. A SQLite store that cannot be read is moved aside with a timestamp, never deleted or overwritten. Both
stores are LangGraph's async savers, because the chat runs the thread graph with `astream`."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

from agent.settings.app import Settings
from agent.store.postgres import SCHEMA_LOCK
from tools.files import move_aside, sqlite_problem

log = logging.getLogger(__name__)

SQLITE_NAME = "threads.sqlite"
CONNECT_TIMEOUT_S = 10
POOL_MAX_SIZE = 4  # the saver serialises its own queries; the pool is for reconnecting after Postgres restarts
CHECKPOINT_SCHEMA_LOCK = SCHEMA_LOCK + 1
LOCK_POLL_S = 0.2


class CheckpointUnavailableError(RuntimeError):
    """The configured checkpoint store cannot be opened."""


async def open_checkpointer(settings: Settings) -> Any:
    """An async LangGraph checkpointer (AsyncSqliteSaver or AsyncPostgresSaver), set up and ready.

    Close it with `await close_checkpointer(saver)`."""
    if settings.stores.thread_store_url:
        return await _postgres(settings.stores.thread_store_url, settings.stores.thread_store_variable)
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    settings.stores.data_dir.mkdir(parents=True, exist_ok=True)
    path = settings.stores.data_dir / SQLITE_NAME
    set_aside(path)
    conn = await aiosqlite.connect(str(path))
    try:
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
    except BaseException as e:
        await conn.close()  # its thread would keep the process alive
        if isinstance(e, sqlite3.Error):
            raise CheckpointUnavailableError(f"cannot open the thread store {path}: {e}") from e
        raise
    return saver


def set_aside(path: Path) -> Path | None:
    """A thread store SQLite cannot read is renamed beside itself with a timestamp (never deleted) and reported, so
    that the chat starts with an empty one; returns the new name, or None when the store is sound."""
    problem = sqlite_problem(path)
    if problem is None:
        return None
    moved = move_aside(path)
    log.warning(
        "the thread store %s could not be read (%s); it was moved to %s and a new one started", path, problem, moved
    )
    return moved


async def close_checkpointer(saver: Any) -> None:
    """Close the saver's connection (aiosqlite) or connection pool (psycopg)."""
    await saver.conn.close()


async def _postgres(url: str, variable: str = "CHECKPOINT_URL") -> Any:
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import AsyncConnection, OperationalError
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool, PoolTimeout
    except ImportError as e:
        raise CheckpointUnavailableError(
            f"{variable} is set but langgraph-checkpoint-postgres is not installed "
            "(pip install langgraph-checkpoint-postgres 'psycopg[binary]' psycopg-pool)"
        ) from e
    # The settings AsyncPostgresSaver needs: autocommit (its setup runs CREATE INDEX CONCURRENTLY), no server-side
    # prepared statements (safe behind PgBouncer), dict rows.
    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    try:  # one direct connection first: a wrong URL fails at once with psycopg's own reason
        probe = await AsyncConnection.connect(url, connect_timeout=CONNECT_TIMEOUT_S, **kwargs)
        await probe.close()
    except OperationalError as e:
        raise CheckpointUnavailableError(f"cannot connect to {variable}: {e}") from e
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=POOL_MAX_SIZE,
        kwargs=kwargs,
        open=False,
        check=AsyncConnectionPool.check_connection,  # a connection dropped by a Postgres restart is replaced
    )
    try:
        await pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        saver = AsyncPostgresSaver(pool)
        # creates or migrates the checkpoint tables; idempotent, once per process, one instance at a time (two that
        # start at once would both create the same tables), under an advisory lock of its own: a lock shared with
        # the synchronous schema creation (agent.store.postgres) could block the event loop that holds it
        async with await AsyncConnection.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as lock:
            await take_lock(lock, CHECKPOINT_SCHEMA_LOCK)
            await saver.setup()
    except (OperationalError, PoolTimeout) as e:
        await pool.close()
        raise CheckpointUnavailableError(f"cannot set up the checkpoint tables at {variable}: {e}") from e
    return saver


async def take_lock(conn: Any, key: int) -> None:
    """Take the session advisory lock `key` on the autocommit connection `conn`, trying again every LOCK_POLL_S.
    Never a blocking pg_advisory_lock: its waiting statement holds a snapshot, and the holder's setup runs CREATE
    INDEX CONCURRENTLY, which waits for every older snapshot of the database; the two would wait for each other
    forever (two instances starting at once)."""
    import asyncio

    while not (await (await conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))).fetchone())[0]:
        await asyncio.sleep(LOCK_POLL_S)
