"""Chainlit's thread list (threads, steps, elements, users and Chainlit's own feedbacks) through its SQLAlchemy data
layer: a SQLite file in DATA_DIR (sqlite+aiosqlite) by default, DATABASE_URL's Postgres (postgresql+asyncpg) when
set, so that every chat instance pointed at it lists and continues the same threads.

The schema is Chainlit's documented one (docs.chainlit.io/data-layers/sqlalchemy), created when missing. In Postgres
the ids are TEXT rather than UUID, so that any id a SQLite store holds copies over as it is (`claimtrace migrate`),
plus an "icon" step column and indexes on the columns the layer looks threads and steps up by."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agent.settings.app import Settings
from agent.store.migrate import Copied
from agent.store.postgres import connect
from agent.store.postgres import ensure_schema as ensure_pg_schema
from ui.chat.launch import app_root

DB_NAME = "chainlit.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    "id" TEXT PRIMARY KEY, "identifier" TEXT NOT NULL UNIQUE, "metadata" TEXT NOT NULL, "createdAt" TEXT);
CREATE TABLE IF NOT EXISTS threads (
    "id" TEXT PRIMARY KEY, "createdAt" TEXT, "name" TEXT, "userId" TEXT, "userIdentifier" TEXT, "tags" TEXT,
    "metadata" TEXT, FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS steps (
    "id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL, "threadId" TEXT NOT NULL, "parentId" TEXT,
    "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN, "metadata" TEXT, "tags" TEXT,
    "input" TEXT, "output" TEXT, "createdAt" TEXT, "command" TEXT, "modes" TEXT, "start" TEXT, "end" TEXT,
    "generation" TEXT, "showInput" TEXT, "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN,
    "autoCollapse" BOOLEAN, FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS elements (
    "id" TEXT PRIMARY KEY, "threadId" TEXT, "type" TEXT, "url" TEXT, "chainlitKey" TEXT, "name" TEXT NOT NULL,
    "display" TEXT, "objectKey" TEXT, "size" TEXT, "page" INT, "language" TEXT, "forId" TEXT, "mime" TEXT,
    "props" TEXT, "autoPlay" BOOLEAN, "playerConfig" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS feedbacks (
    "id" TEXT PRIMARY KEY, "forId" TEXT NOT NULL, "threadId" TEXT NOT NULL, "value" INT NOT NULL, "comment" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
"""

# the tables in the order a copy must write them (a row's foreign keys point to tables before it)
TABLES = ("users", "threads", "steps", "elements", "feedbacks")
PG_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    "id" TEXT PRIMARY KEY, "identifier" TEXT NOT NULL UNIQUE, "metadata" JSONB NOT NULL, "createdAt" TEXT);
CREATE TABLE IF NOT EXISTS threads (
    "id" TEXT PRIMARY KEY, "createdAt" TEXT, "name" TEXT, "userId" TEXT, "userIdentifier" TEXT, "tags" TEXT[],
    "metadata" JSONB, FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS steps (
    "id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL, "threadId" TEXT NOT NULL, "parentId" TEXT,
    "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN, "metadata" JSONB, "tags" TEXT[],
    "input" TEXT, "output" TEXT, "createdAt" TEXT, "command" TEXT, "modes" JSONB, "start" TEXT, "end" TEXT,
    "generation" JSONB, "showInput" TEXT, "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN,
    "autoCollapse" BOOLEAN, "icon" TEXT, FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS elements (
    "id" TEXT PRIMARY KEY, "threadId" TEXT, "type" TEXT, "url" TEXT, "chainlitKey" TEXT, "name" TEXT NOT NULL,
    "display" TEXT, "objectKey" TEXT, "size" TEXT, "page" INT, "language" TEXT, "forId" TEXT, "mime" TEXT,
    "props" JSONB, "autoPlay" BOOLEAN, "playerConfig" JSONB,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS feedbacks (
    "id" TEXT PRIMARY KEY, "forId" TEXT NOT NULL, "threadId" TEXT NOT NULL, "value" INT NOT NULL, "comment" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS threads_user_idx ON threads ("userId");
CREATE INDEX IF NOT EXISTS steps_thread_idx ON steps ("threadId");
CREATE INDEX IF NOT EXISTS elements_thread_idx ON elements ("threadId");
CREATE INDEX IF NOT EXISTS feedbacks_for_idx ON feedbacks ("forId")
"""


def asyncpg_url(url: str) -> str:
    """DATABASE_URL as SQLAlchemy's asyncpg dialect takes it: the driver in the scheme, and libpq's `sslmode` under
    the name asyncpg reads (`ssl`); other query parameters go to asyncpg.connect as they are."""
    parts = urlsplit(url)
    query = [("ssl" if k == "sslmode" else k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    return urlunsplit(parts._replace(scheme="postgresql+asyncpg", query=urlencode(query)))


def create_schema(settings: Settings) -> None:
    """Chainlit's tables in DATABASE_URL's Postgres, when missing (nothing without DATABASE_URL). Raises
    agent.store.postgres.DatabaseUnavailableError."""
    if settings.stores.database_url:
        ensure_pg_schema(settings.stores.database_url, PG_SCHEMA)


def ensure_schema(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
    finally:
        conn.close()
    return path


def database_url(settings: Settings) -> str:
    """The data layer's SQLAlchemy URL, its schema created: DATABASE_URL's Postgres, else the SQLite file."""
    if url := settings.stores.database_url:
        ensure_pg_schema(url, PG_SCHEMA)
        return asyncpg_url(url)
    return f"sqlite+aiosqlite:///{ensure_schema(app_root(settings) / DB_NAME)}"


def thread_in_chat(settings: Settings, thread_id: str) -> bool:
    """Whether Chainlit's thread list holds this thread."""
    if url := settings.stores.database_url:
        ensure_pg_schema(url, PG_SCHEMA)
        with connect(url) as pg:
            return pg.execute('SELECT 1 FROM threads WHERE "id" = %s', (thread_id,)).fetchone() is not None
    path = app_root(settings) / DB_NAME
    if not path.is_file():
        return False
    conn = sqlite3.connect(path)
    try:
        return conn.execute('SELECT 1 FROM threads WHERE "id" = ?', (thread_id,)).fetchone() is not None
    finally:
        conn.close()


def delete_chat_rows(settings: Settings, thread_id: str) -> int:
    """Delete the thread from Chainlit's thread list as its data layer's delete_thread does (feedbacks, elements,
    steps, then the thread row), in one transaction; returns how many rows went."""
    if url := settings.stores.database_url:
        ensure_pg_schema(url, PG_SCHEMA)
        with connect(url) as pg:
            gone = pg.execute(
                'DELETE FROM feedbacks WHERE "forId" IN (SELECT "id" FROM steps WHERE "threadId" = %s) '
                'OR "threadId" = %s', (thread_id, thread_id)).rowcount
            for table in ("elements", "steps"):
                gone += pg.execute(f'DELETE FROM {table} WHERE "threadId" = %s', (thread_id,)).rowcount
            return int(gone + pg.execute('DELETE FROM threads WHERE "id" = %s', (thread_id,)).rowcount)
    path = app_root(settings) / DB_NAME
    if not path.is_file():
        return 0
    conn = sqlite3.connect(path)
    try:
        with conn:
            gone = conn.execute(
                'DELETE FROM feedbacks WHERE "forId" IN (SELECT "id" FROM steps WHERE "threadId" = ?) '
                'OR "threadId" = ?', (thread_id, thread_id)).rowcount
            for table in ("elements", "steps"):
                gone += conn.execute(f'DELETE FROM {table} WHERE "threadId" = ?', (thread_id,)).rowcount
            gone += conn.execute('DELETE FROM threads WHERE "id" = ?', (thread_id,)).rowcount
        return gone
    finally:
        conn.close()


def _pg_value(value: Any, data_type: str) -> Any:
    """A SQLite value as the Postgres column of `data_type` takes it: 0/1 as booleans, JSON text as jsonb (text that
    is not JSON as a JSON string), a JSON list (or one word) as a text array."""
    from psycopg.types.json import Jsonb

    if value is None:
        return None
    if data_type == "boolean":
        return value.lower() in ("1", "true") if isinstance(value, str) else bool(value)
    if data_type == "jsonb":
        try:
            return Jsonb(json.loads(value) if isinstance(value, str) else value)
        except ValueError:
            return Jsonb(value)
    if data_type == "ARRAY":
        try:
            parsed = json.loads(value) if isinstance(value, str) else value
        except ValueError:
            parsed = [value]
        return [str(v) for v in parsed] if isinstance(parsed, list) else [str(parsed)]
    if data_type == "integer":
        return int(value)
    return str(value)


def copy_chat_tables(settings: Settings, url: str) -> dict[str, Copied]:
    """Every row of DATA_DIR's chainlit.sqlite (users, threads, steps, elements, Chainlit's feedbacks) into the
    Postgres at `url`, by id: a row whose id is there already is left as it is, so a second copy writes nothing. A
    user whose name Postgres holds under another id (an instance logged them in first) is that user: their threads
    are copied under Postgres's id. Rows whose thread or user the SQLite file lacks are left out (SQLite does not
    enforce those keys; Postgres does)."""
    done = {table: Copied() for table in TABLES}
    path = app_root(settings) / DB_NAME
    if not path.is_file():
        return done
    src = sqlite3.connect(path)
    src.row_factory = sqlite3.Row
    try:
        rows = {t: [dict(r) for r in src.execute(f"SELECT * FROM {t}")] for t in TABLES}
    finally:
        src.close()
    ensure_pg_schema(url, PG_SCHEMA)
    with connect(url) as pg:
        types = {
            t: dict(pg.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = %s", (t,)).fetchall())
            for t in TABLES
        }
        by_name = dict(pg.execute('SELECT "identifier", "id" FROM users').fetchall())
        user_id = {u["id"]: by_name.get(u["identifier"], u["id"]) for u in rows["users"]}
        for table in TABLES:
            for row in rows[table]:
                if table == "threads" and row.get("userId") is not None:
                    row["userId"] = user_id.get(row["userId"], row["userId"])
                if not _parent_there(pg, table, row):
                    done[table].skipped += 1
                    done[table].why_skipped = "their thread or user is not there"
                    continue
                columns = [c for c in row if c in types[table]]
                quoted, marks = ", ".join(f'"{c}"' for c in columns), ", ".join(["%s"] * len(columns))
                added = pg.execute(
                    f"INSERT INTO {table} ({quoted}) VALUES ({marks}) ON CONFLICT DO NOTHING",
                    [_pg_value(row[c], types[table][c]) for c in columns],
                ).rowcount
                done[table].copied += added
                done[table].present += 1 - added
    return done


def _parent_there(pg: Any, table: str, row: dict[str, Any]) -> bool:
    """Whether the row's thread (its user, for a thread) is in Postgres, as its foreign key requires."""
    if table == "threads":
        key, parent = row.get("userId"), "users"
    elif table in ("steps", "elements", "feedbacks"):
        key, parent = row.get("threadId"), "threads"
    else:
        return True
    if key is None:
        return table in ("threads", "elements")  # nullable keys
    return pg.execute(f'SELECT 1 FROM {parent} WHERE "id" = %s', (key,)).fetchone() is not None
