"""The kept checks, findable by their claim: one row per check kept in the chat, by `claimtrace ask` or by the MCP
server (its claim's embedding, verdict, date, thread and who checked it), so that a new claim can be matched to
claims checked before.

The rows live where the threads do: a table of its own in the SQLite file the LangGraph checkpointer uses
(DATA_DIR/threads.sqlite; a busy timeout lets it wait for the checkpointer's writes), or of the Postgres of
CHECKPOINT_URL / DATABASE_URL, created under the shared advisory lock. Embeddings are stored as little-endian float32
bytes. A lookup searches every kept check's embedding in memory (agent.store.kept_index), first brought in step
with the table, so several instances sharing one Postgres see each other's checks and deletions. The synchronous
helpers at the end open the store for one call, as the CLI needs."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np

from agent.settings.app import Settings
from agent.store.checkpoint import SQLITE_NAME, CheckpointUnavailableError
from agent.store.kept_index import Row, Stats, VectorIndex
from agent.store.postgres import CONNECT_TIMEOUT_S, SCHEMA_LOCK, DatabaseUnavailableError, ensure_schema, one_line
from agent.store.threads import has_store
from tools.models.embedder import DIM, MODEL_NAME

TABLE = "kept_checks"
BUSY_TIMEOUT_S = 10.0
# Postgres: every write takes this transaction lock first, so sequence numbers are taken in commit order (the
# refresh in agent.store.kept_index relies on it); checks are kept seconds apart, so nobody waits for it long
KEEP_LOCK = SCHEMA_LOCK + 3  # + 1: the checkpoints' schema, + 2: `claimtrace migrate` (which keeps checks too)
Mode = Literal["read", "snapshot", "write"]
COLUMNS = "check_id, thread_id, claim, verdict, papers_read, checked_at, checked_by"
FIELDS = """check_id TEXT NOT NULL UNIQUE,
    thread_id TEXT NOT NULL,
    claim TEXT NOT NULL,
    verdict TEXT NOT NULL,
    papers_read INTEGER NOT NULL,
    checked_at TEXT NOT NULL,
    checked_by TEXT NOT NULL"""
STATE = f"{TABLE}_state"  # one row: the generation, raised by every deletion
# AUTOINCREMENT: a sequence number is never given twice, even after the highest row is deleted (the refresh needs it)
SQLITE_SCHEMA = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    {FIELDS},
    embedding BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS {TABLE}_thread_id_idx ON {TABLE} (thread_id);
CREATE TABLE IF NOT EXISTS {STATE} (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
INSERT INTO {STATE} (id, generation) VALUES (1, 0) ON CONFLICT (id) DO NOTHING"""
PG_SCHEMA = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    {FIELDS},
    embedding BYTEA NOT NULL
);
CREATE INDEX IF NOT EXISTS {TABLE}_thread_id_idx ON {TABLE} (thread_id);
CREATE TABLE IF NOT EXISTS {STATE} (id SMALLINT PRIMARY KEY CHECK (id = 1), generation BIGINT NOT NULL);
INSERT INTO {STATE} (id, generation) VALUES (1, 0) ON CONFLICT (id) DO NOTHING"""
INSERT = f"INSERT INTO {TABLE} ({COLUMNS}, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (check_id) DO NOTHING"
# both found through an index at once, whatever the table's size (a count(*) reads every row on Postgres)
STATS = f"SELECT (SELECT generation FROM {STATE}), (SELECT coalesce(max(seq), 0) FROM {TABLE})"
AFTER = f"SELECT seq, checked_by, embedding FROM {TABLE} WHERE seq > ? ORDER BY seq"


@dataclass(frozen=True)
class KeptCheck:
    check_id: str  # a uuid
    thread_id: str
    claim: str
    verdict: str  # the verdict's label, e.g. "Supported", "Not enough evidence"
    papers_read: int
    checked_at: str  # ISO 8601, UTC
    checked_by: str  # the user's identifier; "" when unknown

    @classmethod
    def new(cls, thread_id: str, claim: str, verdict: str, papers_read: int, checked_by: str = "") -> KeptCheck:
        """A check kept now, under a new id."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        return cls(str(uuid.uuid4()), thread_id, claim, verdict, papers_read, now, checked_by)


class _Sqlite:
    """The table in the thread store's SQLite file, on one connection in autocommit mode."""

    def __init__(self, settings: Settings) -> None:
        settings.stores.data_dir.mkdir(parents=True, exist_ok=True)
        self.where = str(settings.stores.data_dir / SQLITE_NAME)
        conn = sqlite3.connect(self.where, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")  # as the checkpointer sets it: readers never wait for a writer
            conn.executescript(SQLITE_SCHEMA)
        except sqlite3.Error as e:
            conn.close()
            raise CheckpointUnavailableError(f"cannot open the kept checks in {self.where}: {e}") from e
        self._conn = conn

    def run(self, work: Callable[[Any], Any], mode: Mode = "read") -> Any:
        """`work(conn)` in one transaction: every one reads a consistent snapshot; a write waits for the write lock
        from its start (busy timeout), never upgrading a read that a newer commit has made stale."""
        try:
            self._conn.execute("BEGIN IMMEDIATE" if mode == "write" else "BEGIN")
            try:
                result = work(self._conn)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
            return result
        except sqlite3.Error as e:
            raise CheckpointUnavailableError(f"the kept checks in {self.where} cannot be used: {e}") from e

    def close(self) -> None:
        self._conn.close()


class _Postgres:
    """The table in the thread store's Postgres, on one connection held open (a lost one is opened again once)."""

    def __init__(self, url: str, variable: str) -> None:
        import psycopg

        self.url, self.where = url, variable
        try:
            ensure_schema(url, PG_SCHEMA)
        except (psycopg.Error, DatabaseUnavailableError) as e:
            raise CheckpointUnavailableError(f"cannot create the kept checks table at {variable}: {one_line(e)}") from e
        self._conn: Any = None

    def run(self, work: Callable[[Any], Any], mode: Mode = "read") -> Any:
        """`work(conn)` in one transaction: a read, a repeatable-read snapshot, or a write under KEEP_LOCK."""
        import psycopg

        for attempt in (1, 2):
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = psycopg.connect(
                        self.url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True, prepare_threshold=None
                    )
                with self._conn.transaction():
                    if mode == "snapshot":  # the generation, highest seq and rows read must agree
                        self._conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    elif mode == "write":
                        self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (KEEP_LOCK,))
                    return work(_PgCursor(self._conn))
            except psycopg.OperationalError as e:
                self.close()  # an insert is retried safely: a check already kept is skipped
                if attempt == 2:
                    raise CheckpointUnavailableError(f"the kept checks at {self.where} failed: {one_line(e)}") from e
            except psycopg.Error as e:
                raise CheckpointUnavailableError(f"the kept checks at {self.where} failed: {one_line(e)}") from e
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class _PgCursor:
    """A psycopg connection that takes the SQLite spelling of parameters (`?`) and reads bytea as raw bytes."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._conn.cursor(binary=True).execute(sql.replace("?", "%s"), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._conn.cursor().executemany(sql.replace("?", "%s"), rows)


class KeptChecks:
    """The kept checks of the configured thread store, and a search over their claims. Thread-safe; close it."""

    def __init__(self, settings: Settings, dim: int = DIM) -> None:
        url = settings.stores.thread_store_url
        self._db = _Postgres(url, settings.stores.thread_store_variable) if url else _Sqlite(settings)
        self.dim = dim
        self.index = VectorIndex(dim)
        self._lock = threading.Lock()

    def _unit(self, embedding: np.ndarray) -> np.ndarray:
        vector = np.asarray(embedding, dtype=np.float32)
        if vector.ndim == 2 and vector.shape[0] == 1:
            vector = vector[0]
        if vector.shape != (self.dim,):
            raise ValueError(
                f"an embedding of shape {vector.shape}; the kept checks hold {self.dim}-dimensional vectors "
                f"({MODEL_NAME}'s, as get_embedder().encode gives them)"
            )
        norm = float(np.linalg.norm(vector))
        if not np.isfinite(norm) or norm == 0:
            raise ValueError("an embedding of zero length or with non-finite values has no direction to compare")
        return (vector / norm).astype("<f4")

    def add(self, check: KeptCheck, embedding: np.ndarray) -> None:
        """Keep one check; a check whose id is kept already is left as it is."""
        self.add_many([(check, embedding)])

    def add_many(self, items: Sequence[tuple[KeptCheck, np.ndarray]]) -> None:
        """Keep several checks in one transaction (every embedding is checked before any is written)."""
        rows = [(*astuple(check), self._unit(embedding).tobytes()) for check, embedding in items]
        if rows:
            with self._lock:
                self._db.run(lambda conn: conn.executemany(INSERT, rows), "write")

    def _read(self, after: int) -> tuple[Stats, list[Row]]:
        def read(conn: Any) -> tuple[Stats, list[Row]]:
            generation, max_seq = conn.execute(STATS).fetchone()
            found: list[Row] = conn.execute(AFTER, (after,)).fetchall()  # int, str, bytes on both databases
            return Stats(int(generation), int(max_seq)), found

        result: tuple[Stats, list[Row]] = self._db.run(read, "snapshot")
        return result

    def refresh(self) -> None:
        """Bring the in-memory embeddings in step with the table (every lookup does it first); the first call reads
        them all, so a server can call it at its start rather than make its first user wait."""
        with self._lock:
            self.index.refresh(self._read)

    def nearest(
        self, embedding: np.ndarray, k: int = 5, min_similarity: float = 0.0, visible_to: str | None = None
    ) -> list[tuple[KeptCheck, float]]:
        """The `k` kept checks whose claims are nearest `embedding` by cosine similarity, best first, each at least
        `min_similarity`; with `visible_to`, only the checks that user kept (None: everyone's)."""
        query = self._unit(embedding)
        with self._lock:
            self.index.refresh(self._read)
            hits = self.index.search(query, k, min_similarity, visible_to)
            if not hits:
                return []
            marks = ", ".join("?" for _ in hits)
            sql = f"SELECT seq, {COLUMNS} FROM {TABLE} WHERE seq IN ({marks})"
            found = self._db.run(lambda conn: conn.execute(sql, [seq for seq, _ in hits]).fetchall())
        checks = {int(row[0]): KeptCheck(*row[1:]) for row in found}
        return [(checks[seq], score) for seq, score in hits if seq in checks]  # a row forgotten meanwhile is left out

    def forget_thread(self, thread_id: str) -> int:
        """Delete the kept checks of one thread; returns how many there were. A deletion raises the generation in
        the same transaction, so that every instance reads its matrix again."""

        def forget(conn: Any) -> int:
            gone = int(conn.execute(f"DELETE FROM {TABLE} WHERE thread_id = ?", (thread_id,)).rowcount)
            if gone:
                conn.execute(f"UPDATE {STATE} SET generation = generation + 1 WHERE id = 1")
            return gone

        with self._lock:
            return int(self._db.run(forget, "write"))

    def count(self) -> int:
        """The kept checks in the table (every row read: not for each lookup)."""
        with self._lock:
            return int(self._db.run(lambda conn: conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]))

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self.index = VectorIndex(self.dim)


@contextmanager
def kept_checks(settings: Settings) -> Iterator[KeptChecks]:
    """The configured store's kept checks, closed again on leaving."""
    store = KeptChecks(settings)
    try:
        yield store
    finally:
        store.close()


def keep(settings: Settings, check: KeptCheck, embedding: np.ndarray) -> None:
    """`KeptChecks.add` in the configured store (created when missing)."""
    with kept_checks(settings) as store:
        store.add(check, embedding)


def nearest_kept(
    settings: Settings, embedding: np.ndarray, k: int = 5, min_similarity: float = 0.0, visible_to: str | None = None
) -> list[tuple[KeptCheck, float]]:
    """`KeptChecks.nearest` in the configured store ([] when there is none yet; reading creates none)."""
    if not has_store(settings):
        return []
    with kept_checks(settings) as store:
        return store.nearest(embedding, k, min_similarity, visible_to)


def forget_kept(settings: Settings, thread_id: str) -> int:
    """`KeptChecks.forget_thread` in the configured store (0 when there is none)."""
    if not has_store(settings):
        return 0
    with kept_checks(settings) as store:
        return store.forget_thread(thread_id)
