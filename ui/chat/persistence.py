"""Chainlit's thread list on SQLite (its SQLAlchemy data layer, sqlite+aiosqlite).

The schema is Chainlit's documented one (docs.chainlit.io/data-layers/sqlalchemy) in SQLite types."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent.settings.app import Settings
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


def ensure_schema(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
    finally:
        conn.close()
    return path


def database_url(settings: Settings) -> str:
    return f"sqlite+aiosqlite:///{ensure_schema(app_root(settings) / DB_NAME)}"


def thread_in_chat(settings: Settings, thread_id: str) -> bool:
    """Whether Chainlit's thread list holds this thread."""
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
