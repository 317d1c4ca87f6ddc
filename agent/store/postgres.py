"""The shared Postgres of DATABASE_URL, as the synchronous stores use it (feedback, the chat's login secret and
password hash, Chainlit's tables): a psycopg connection per use, schema created under an advisory lock so that
instances starting at once do not race, and a small table of values every instance shares.

The checkpoints use LangGraph's own Postgres saver (agent.store.checkpoint) and Chainlit its SQLAlchemy data layer
on asyncpg (ui.chat.persistence); all of them are tables of the one database."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# one connect timeout, and one pg_advisory_xact_lock key under which every claimtrace table is created
from tools.admission import CONNECT_TIMEOUT_S, SCHEMA_LOCK

SHARED_TABLE = "claimtrace_shared"
SHARED_SCHEMA = f"""CREATE TABLE IF NOT EXISTS {SHARED_TABLE} (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
)"""
_ready: set[tuple[str, str]] = set()  # (url, schema) created by this process


def one_line(e: Exception) -> str:
    """psycopg's message on one line (libpq adds a hint on a second one)."""
    return " ".join(str(e).split())


class DatabaseUnavailableError(RuntimeError):
    """DATABASE_URL's server cannot be reached or refuses the statement; the message says why."""


@contextmanager
def connect(url: str) -> Iterator[Any]:
    """A psycopg connection that commits on success, rolls back on an error and is always closed. Raises
    DatabaseUnavailableError when the server cannot be reached."""
    import psycopg

    try:
        conn = psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.OperationalError as e:
        raise DatabaseUnavailableError(f"cannot connect to DATABASE_URL: {one_line(e)}") from e
    try:
        with conn:  # commits, or rolls back on an exception
            yield conn
    finally:
        conn.close()


def ensure_schema(url: str, schema: str) -> None:
    """Run `schema` (CREATE ... IF NOT EXISTS statements) once per process, under an advisory lock: two instances
    starting at once would otherwise both try to create the same table and one would fail."""
    if (url, schema) in _ready:
        return
    with connect(url) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        for statement in (s for s in schema.split(";") if s.strip()):
            conn.execute(statement)
    _ready.add((url, schema))


def shared_value(url: str, name: str, make: Callable[[], str]) -> tuple[str, bool]:
    """The value every instance shares under `name`, made by `make` and kept when there is none yet; returns it and
    whether this call made it. Of two instances making one at once, the first to commit wins and both return it."""
    ensure_schema(url, SHARED_SCHEMA)
    with connect(url) as conn:
        row = conn.execute(
            f"INSERT INTO {SHARED_TABLE} (name, value) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING RETURNING value",
            (name, candidate := make()),
        ).fetchone()
        if row is not None:
            return candidate, True
        row = conn.execute(f"SELECT value FROM {SHARED_TABLE} WHERE name = %s", (name,)).fetchone()
    return str(row[0]), False


def read_shared(url: str, name: str) -> str | None:
    """The shared value `name`, or None when none is kept."""
    ensure_schema(url, SHARED_SCHEMA)
    with connect(url) as conn:
        row = conn.execute(f"SELECT value FROM {SHARED_TABLE} WHERE name = %s", (name,)).fetchone()
    return None if row is None else str(row[0])
