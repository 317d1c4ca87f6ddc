"""User feedback on verification (as in Verif.ai): "this flag is wrong" / "this sentence is unsupported".

Each record keeps what a retraining run needs: the claim, the answer sentence, its cited sources (sentence and
context) and the verifier's status and score. Stored in SQLite in DATA_DIR, or in the `feedback` table of
DATABASE_URL's Postgres when the functions are given settings that name one; exported as JSONL.

Each function takes the settings (DATABASE_URL when set, else DATA_DIR) or a DATA_DIR path (its SQLite file)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from agent.result import CheckResult
from agent.settings.app import Settings
from agent.store.postgres import connect, ensure_schema

Kind = Literal["flag_wrong", "unsupported"]
VERIFIER_FIELDS = {"status", "flagged", "score", "reason", "attribution"}
SOURCE_FIELDS = {"n", "doc_id", "title", "sentence", "sentence_index", "context", "stance", "url", "year"}
DB_NAME = "feedback.sqlite"
SCHEMA = """CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    thread_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    record TEXT NOT NULL
)"""


# the same table in Postgres; the SQLite file's rows are copied in by `claimtrace migrate`
PG_SCHEMA = """CREATE TABLE IF NOT EXISTS feedback (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at DOUBLE PRECISION NOT NULL,
    thread_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS feedback_thread_id_idx ON feedback (thread_id)"""
Where = Settings | Path


def db_path(data_dir: Path) -> Path:
    return data_dir / DB_NAME


def _postgres(where: Where) -> str | None:
    """DATABASE_URL when `where` is settings that name one, else None (the SQLite file)."""
    return where.stores.database_url if isinstance(where, Settings) else None


def _data_dir(where: Where) -> Path:
    return where.stores.data_dir if isinstance(where, Settings) else where


@contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that commits on success and is always closed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        with conn:
            conn.execute(SCHEMA)
            yield conn
    finally:
        conn.close()


def feedback_record(result: CheckResult, sentence: int, kind: Kind) -> dict[str, Any]:
    """What is stored for answer sentence `sentence` (1-based) of a check result."""
    s = result.sentences[sentence - 1]
    return {
        "kind": kind,
        "claim": result.claim,
        "sentence_index": sentence,
        "sentence": s.text,
        "citations": s.citations,
        "verifier": s.model_dump(mode="json", include=VERIFIER_FIELDS),
        "sources": [src.model_dump(mode="json", include=SOURCE_FIELDS) for src in result.cited_sources(s)],
        "verdict": result.verdict.model_dump(mode="json") if result.verdict else None,
    }


def record_feedback(where: Where, thread_id: str, result: CheckResult, sentence: int, kind: Kind) -> int:
    """Store one piece of feedback; returns its id. Raises IndexError for a sentence the answer does not have."""
    if not 1 <= sentence <= len(result.sentences):
        raise IndexError(f"the answer has no sentence {sentence}")
    row = (time.time(), thread_id, kind, json.dumps(feedback_record(result, sentence, kind), ensure_ascii=False))
    if url := _postgres(where):
        ensure_schema(url, PG_SCHEMA)
        with connect(url) as pg:
            got = pg.execute(
                "INSERT INTO feedback (created_at, thread_id, kind, record) VALUES (%s, %s, %s, %s) RETURNING id", row
            ).fetchone()
        return int(got[0])
    with _connect(db_path(_data_dir(where))) as conn:
        cur = conn.execute("INSERT INTO feedback (created_at, thread_id, kind, record) VALUES (?, ?, ?, ?)", row)
        return int(cur.lastrowid or 0)


def _rows(where: Where) -> list[tuple[Any, ...]]:
    """(id, created_at, thread_id, record) of every stored record, oldest first."""
    query = "SELECT id, created_at, thread_id, record FROM feedback ORDER BY id"
    if url := _postgres(where):
        ensure_schema(url, PG_SCHEMA)
        with connect(url) as pg:
            return list(pg.execute(query).fetchall())
    path = db_path(_data_dir(where))
    if not path.is_file():
        return []
    with _connect(path) as conn:
        return conn.execute(query).fetchall()


def iter_feedback(where: Where) -> Iterator[dict[str, Any]]:
    """Every stored record, oldest first, with id, time and thread."""
    for row_id, created, thread_id, record in _rows(where):
        yield {"id": row_id, "created_at": created, "thread_id": thread_id, **json.loads(record)}


def export_jsonl(where: Where, out: Any) -> int:
    """Write one JSON object per line to the text stream `out`; returns how many."""
    count = 0
    for rec in iter_feedback(where):
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        count += 1
    return count


def delete_feedback(where: Where, thread_id: str) -> int:
    """Delete every record of one thread; returns how many there were."""
    if url := _postgres(where):
        ensure_schema(url, PG_SCHEMA)
        with connect(url) as pg:
            return int(pg.execute("DELETE FROM feedback WHERE thread_id = %s", (thread_id,)).rowcount)
    path = db_path(_data_dir(where))
    if not path.is_file():
        return 0
    with _connect(path) as conn:
        return conn.execute("DELETE FROM feedback WHERE thread_id = ?", (thread_id,)).rowcount
