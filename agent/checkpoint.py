"""The thread checkpointer: a SQLite file in DATA_DIR by default, Postgres when CHECKPOINT_URL is given.

Opened once per process and kept open; every write is committed, so a thread survives a killed server."""

from __future__ import annotations

from typing import Any

from agent.settings import Settings

SQLITE_NAME = "threads.sqlite"


class CheckpointUnavailableError(RuntimeError):
    """The configured checkpoint store cannot be opened."""


async def open_checkpointer(settings: Settings) -> Any:
    """An async LangGraph checkpointer (AsyncSqliteSaver or AsyncPostgresSaver), set up and ready."""
    if settings.checkpoint_url:
        return await _postgres(settings.checkpoint_url)
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(settings.data_dir / SQLITE_NAME))
    saver = AsyncSqliteSaver(conn)
    await saver.setup()
    return saver


async def _postgres(url: str) -> Any:
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import AsyncConnection
        from psycopg.rows import dict_row
    except ImportError as e:
        raise CheckpointUnavailableError(
            "CHECKPOINT_URL is set but langgraph-checkpoint-postgres is not installed "
            "(pip install langgraph-checkpoint-postgres psycopg[binary])"
        ) from e
    try:
        conn = await AsyncConnection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    except Exception as e:  # psycopg reports every connection failure as its own OperationalError subclasses
        raise CheckpointUnavailableError(f"cannot connect to CHECKPOINT_URL: {e}") from e
    saver = AsyncPostgresSaver(conn)
    await saver.setup()
    return saver
