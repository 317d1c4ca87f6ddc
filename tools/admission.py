"""Admission that every instance on one Postgres (DATABASE_URL) shares for one LLM server: the chat's check queue and
the LLM's turns (who reads, who calls) as rows of one table, decided under an advisory lock per server.

Each row is one check or LLM call of one instance, waiting or running, in arrival order (its id). A decision (which
waiting rows start) is one transaction under ``pg_advisory_xact_lock`` on the server, so two instances never start
more than the rule allows. Each process holds a session advisory lock of its own on one connection while it lives;
a row whose owner's lock is gone (the process was killed, its connection closed or timed out by TCP keepalives) is
deleted by the next decision, so a killed instance's slots pass on at once. Waiters poll: one small transaction each
POLL_S while they wait."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

CONNECT_TIMEOUT_S = 10
# the key every claimtrace table is created under (this one, and agent.store.postgres's), so that instances starting
# at once do not race ("claimtrace" in ASCII, as an int8)
SCHEMA_LOCK = 0x636C61696D74
TABLE = "claimtrace_admission"
SCHEMA = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    id BIGSERIAL PRIMARY KEY,
    server TEXT NOT NULL,
    kind TEXT NOT NULL,
    holder BIGINT NOT NULL,
    running BOOLEAN NOT NULL DEFAULT false,
    since TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS {TABLE}_server ON {TABLE} (server, id)"""
# advisory lock classes (the first int4 of the two-key form): a live process, and one decision per server at a time
LIVE_CLASS = 0x636C
DECIDE_CLASS = 0x636D
POLL_S = 0.25
# the server closes a vanished client's session (and frees its lock) after about idle + interval * count seconds
KEEPALIVE = "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"


@dataclass(frozen=True)
class Row:
    id: int
    kind: str
    holder: int
    running: bool


# which waiting rows start now, given every live row of the server in arrival order
Rule = Callable[[Sequence[Row]], list[int]]


def check_rule(slots: int) -> Rule:
    """Checks start in arrival order while fewer than `slots` run."""

    def rule(rows: Sequence[Row]) -> list[int]:
        free = slots - sum(r.running for r in rows if r.kind == "check")
        return [r.id for r in rows if r.kind == "check" and not r.running][: max(free, 0)]

    return rule


def turn_rule(parallel: int) -> Rule:
    """The LLM's turns (agent.llm.turns) across instances: a reading starts in arrival order while fewer than
    `parallel` requests run (readings and calls together), so its seconds are its own; other calls start only while
    no reading waits and fewer than `parallel` readings run."""

    def rule(rows: Sequence[Row]) -> list[int]:
        reading = sum(r.running for r in rows if r.kind == "read")
        calls = sum(r.running for r in rows if r.kind == "call")
        start: list[int] = []
        waiting_reads = [r for r in rows if r.kind == "read" and not r.running]
        for r in waiting_reads:
            if reading + calls >= parallel:
                break
            start.append(r.id)
            reading += 1
        if len(start) == len(waiting_reads) and reading < parallel:
            start += [r.id for r in rows if r.kind == "call" and not r.running]
        return start

    return rule


class AdmissionUnavailableError(RuntimeError):
    """DATABASE_URL's server cannot be reached or refuses the statement; the message says why."""


def one_line(e: Exception) -> str:
    """psycopg's message on one line (libpq adds a hint on a second one)."""
    return " ".join(str(e).split())


class SharedAdmission:
    """One process's handle on the shared table: a connection that holds this process's liveness lock, used by one
    thread at a time. A lost connection is opened again with the same lock (rows a decision swept meanwhile are
    entered again by their waiters)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.holder = random.randrange(1, 2**31)
        self._conn: Any = None
        self._lock = threading.Lock()

    def _connection(self) -> Any:
        import psycopg

        if self._conn is not None and not self._conn.closed:
            return self._conn
        try:
            conn = psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True, options=KEEPALIVE)
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                for statement in (s for s in SCHEMA.split(";") if s.strip()):
                    conn.execute(statement)
            conn.execute("SELECT pg_advisory_lock(%s, %s)", (LIVE_CLASS, self.holder))
        except psycopg.Error as e:
            raise AdmissionUnavailableError(f"cannot connect to DATABASE_URL: {one_line(e)}") from e
        self._conn = conn
        return conn

    def _run(self, server: str, work: Callable[[Any], Any]) -> Any:
        """`work(conn)` in one transaction under the server's decision lock; one retry on a lost connection."""
        import psycopg

        with self._lock:
            for attempt in (1, 2):
                conn = self._connection()
                try:
                    with conn.transaction():
                        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (DECIDE_CLASS, server))
                        return work(conn)
                except psycopg.OperationalError as e:
                    conn.close()
                    if attempt == 2:
                        raise AdmissionUnavailableError(f"DATABASE_URL's database failed: {one_line(e)}") from e
        raise AssertionError("unreachable")

    def enter(self, server: str, kind: str) -> int:
        """A new waiting row at the end of the server's line; its id."""
        return int(self._run(server, lambda conn: conn.execute(
            f"INSERT INTO {TABLE} (server, kind, holder) VALUES (%s, %s, %s) RETURNING id", (server, kind, self.holder)
        ).fetchone()[0]))

    def leave(self, server: str, row_id: int) -> None:
        self._run(server, lambda conn: conn.execute(f"DELETE FROM {TABLE} WHERE id = %s", (row_id,)))

    def waiting(self, server: str) -> int:
        """How many rows of the server's live processes wait (any instance, any kind)."""

        def work(conn: Any) -> int:
            sweep(conn, server)
            return int(conn.execute(f"SELECT count(*) FROM {TABLE} WHERE server = %s AND NOT running",
                                    (server,)).fetchone()[0])

        return int(self._run(server, work))

    def decide(self, server: str, rule: Rule) -> list[Row]:
        """Delete the rows of processes that are gone, start the waiting rows `rule` picks, and return every row of
        the server in arrival order."""

        def work(conn: Any) -> list[Row]:
            sweep(conn, server)
            rows = [Row(*r) for r in conn.execute(
                f"SELECT id, kind, holder, running FROM {TABLE} WHERE server = %s ORDER BY id", (server,)
            ).fetchall()]
            start = set(rule(rows))
            if start:
                conn.execute(f"UPDATE {TABLE} SET running = true WHERE id = ANY(%s)", (sorted(start),))
            return [Row(r.id, r.kind, r.holder, r.running or r.id in start) for r in rows]

        result: list[Row] = self._run(server, work)
        return result

    def close(self) -> None:
        """Close the connection: this process's rows are swept by the next decision."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()


def sweep(conn: Any, server: str) -> None:
    """Delete the server's rows whose process is gone (its liveness lock is no longer held)."""
    conn.execute(
        f"""DELETE FROM {TABLE} WHERE server = %s AND holder NOT IN (
            SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
            AND classid::bigint = %s
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))""",
        (server, LIVE_CLASS),
    )


def place(rows: Sequence[Row], row_id: int, kind: str) -> int | None:
    """The 1-based place of `row_id` among the waiting rows of `kind`; 0 when it runs, None when it is gone."""
    waiting = 0
    for r in rows:
        if r.kind == kind and not r.running:
            waiting += 1
        if r.id == row_id:
            return 0 if r.running else waiting
    return None


_handles: dict[str, SharedAdmission] = {}
_handles_lock = threading.Lock()


def shared_admission(url: str) -> SharedAdmission:
    """This process's one handle for `url`."""
    with _handles_lock:
        if url not in _handles:
            _handles[url] = SharedAdmission(url)
        return _handles[url]
