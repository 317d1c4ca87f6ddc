"""tools.files.storage_problem tells a full or unwritable disk from every other error, through the chains that SQLite,
Chroma and the libraries around them raise."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from tools.files import DISK_FULL, NOT_WRITABLE, storage_problem


def sqlite_full_error(tmp_path: Path) -> sqlite3.Error:
    """SQLite's own error for a write that finds no room: the database may not grow past its current pages."""
    conn = sqlite3.connect(tmp_path / "full.sqlite")
    conn.execute("CREATE TABLE t (x BLOB)")
    conn.commit()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    try:
        conn.execute("INSERT INTO t VALUES (?)", (bytes(1 << 16),))
    except sqlite3.Error as e:
        return e
    finally:
        conn.close()
    raise AssertionError("SQLite wrote past max_page_count")


def wrapped(inner: BaseException) -> RuntimeError:
    try:
        raise RuntimeError("the checkpoint could not be written") from inner
    except RuntimeError as e:
        return e


def test_full_and_unwritable_are_told_apart_through_error_chains(tmp_path: Path):
    full = sqlite_full_error(tmp_path)
    assert storage_problem(full) == DISK_FULL
    assert storage_problem(wrapped(full)) == DISK_FULL
    assert storage_problem(OSError(errno.ENOSPC, "No space left on device")) == DISK_FULL
    assert storage_problem(OSError(errno.EROFS, "Read-only file system")) == NOT_WRITABLE
    chroma = "error returned from database: (code: 8) attempt to write a readonly database"
    assert storage_problem(wrapped(RuntimeError(chroma))) == NOT_WRITABLE


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ECONNREFUSED, "Connection refused"),
        FileNotFoundError(errno.ENOENT, "No such file or directory"),
        sqlite3.DatabaseError("file is not a database"),
        ValueError("disk"),
    ],
)
def test_other_errors_are_not_taken_for_a_disk_problem(error: BaseException):
    assert storage_problem(error) is None
