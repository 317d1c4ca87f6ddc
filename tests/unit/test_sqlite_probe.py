"""tools.files.sqlite_problem on a SQLite database this process holds open (the chat's thread store while `/library`
counts the checks that cite each paper): the probe reads the file through SQLite only, so the open connection keeps
its locks, another process that opens and closes the database leaves its write-ahead log alone, and every write made
after the probe is on disk for other processes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from tools.files import sqlite_problem

OPEN_AND_CLOSE = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT 1 FROM t'); c.close()"


def count(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM t").fetchone()[0])
    finally:
        conn.close()


def test_probing_an_open_database_leaves_its_write_ahead_log_to_it(tmp_path: Path):
    path = tmp_path / "threads.sqlite"
    held = sqlite3.connect(path)
    held.execute("PRAGMA journal_mode=WAL")
    with held:
        held.execute("CREATE TABLE t (x)")
        held.execute("INSERT INTO t VALUES (1)")
    assert sqlite_problem(path) is None and sqlite_problem(path, thorough=False) is None
    subprocess.run([sys.executable, "-c", OPEN_AND_CLOSE, str(path)], check=True)
    assert (tmp_path / "threads.sqlite-wal").exists()
    with held:
        held.execute("INSERT INTO t VALUES (2)")  # written after the probe: other processes read it
    assert count(path) == 2
    held.close()


def test_a_file_that_is_not_a_database_is_named(tmp_path: Path):
    path = tmp_path / "threads.sqlite"
    path.write_bytes(b"not a database at all, " * 200)
    assert sqlite_problem(path) == sqlite_problem(path, thorough=False) == "not a SQLite database"
    path.write_bytes(b"")
    assert sqlite_problem(path) is None  # an empty file is a database SQLite has not written yet
