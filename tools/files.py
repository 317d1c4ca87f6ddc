"""File helpers shared by the corpus, model and verifier checks and the stores that must survive damage."""

from __future__ import annotations

import errno
import hashlib
import sqlite3
import time
from pathlib import Path


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 4 MiB chunks."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def move_aside(path: Path, why: str = "damaged") -> Path:
    """Rename a file or folder to `<name>.<why>-<YYYYmmdd-HHMMSS>` beside it, so that nothing in it is lost, and
    return the new path. A SQLite file takes its `-wal` and `-shm` companions along (the log holds committed
    writes)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{why}-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.{why}-{stamp}-{n}")
        n += 1
    path.rename(target)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            companion.rename(target.with_name(target.name + suffix))
    return target


def sqlite_problem(path: Path, thorough: bool = True) -> str | None:
    """Why the SQLite database at `path` cannot be used, or None when it looks sound (or does not exist): its header,
    then, when `thorough`, SQLite's own `PRAGMA quick_check` of every page.

    The file is read through SQLite only. Closing any other descriptor of a database file drops every POSIX lock
    this process holds on it, and a process that holds the database open (the chat's thread store) would lose the
    lock that keeps another process from deleting its write-ahead log on closing, and with it the writes after."""
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(path)
        try:
            rows = [str(row[0]) for row in conn.execute("PRAGMA quick_check" if thorough else "PRAGMA schema_version")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        return "not a SQLite database" if "file is not a database" in str(e) else str(e)
    return None if not thorough or rows == ["ok"] else "; ".join(rows[:3])


DISK_FULL = "the disk is full: free some space, then try again"
NOT_WRITABLE = "its folder is read-only or not writable: make DATA_DIR writable, then try again"
_FULL_WORDS = ("database or disk is full", "no space left on device", "disk quota exceeded")
_READ_ONLY_WORDS = ("readonly database", "read-only file system", "permission denied")


def storage_problem(error: BaseException) -> str | None:
    """DISK_FULL or NOT_WRITABLE when `error`, or an error it arose from, is a write that found no space or a place it
    may not write (an OSError's errno, or SQLite's and Chroma's words for them); None for any other error."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            return DISK_FULL
        if isinstance(e, OSError) and e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return NOT_WRITABLE
        text = str(e).lower()
        if any(words in text for words in _FULL_WORDS):
            return DISK_FULL
        if any(words in text for words in _READ_ONLY_WORDS):
            return NOT_WRITABLE
        e = e.__cause__ or e.__context__
    return None
