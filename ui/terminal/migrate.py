"""`claimtrace migrate --to postgresql://...`: everything a user owns in a SQLite DATA_DIR copied into the Postgres
that DATABASE_URL then names: the chat's users, threads, steps and elements, the thread checkpoints, the feedback,
and the login secret and generated password's hash. The SQLite files are only read. Run again, it writes nothing
twice: each line says what it copied and what was there already. Two copies at once wait for each other."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError

MIGRATE_LOCK_OFFSET = 2  # the copy's advisory lock: agent.store.postgres.SCHEMA_LOCK + this
LOCK_POLL_S = 0.2


def add_migrate_parser(sub: Any) -> None:
    p = sub.add_parser("migrate", help="copy a SQLite DATA_DIR's threads, users, feedback and login into Postgres")
    p.add_argument("--to", metavar="URL", help="postgresql://user:password@host:5432/db (default: DATABASE_URL)")
    p.add_argument("--data-dir", type=Path, help="the DATA_DIR to copy from (default: DATA_DIR)")


def _copy_shared(data_dir_root: Path, url: str, name: str) -> str:
    """The file `name` of the chat's app root into the shared values, unless the database holds one already."""
    from agent.store.postgres import shared_value

    path = data_dir_root / name
    if not path.is_file():
        return "none in DATA_DIR"
    text = path.read_text(encoding="utf-8").strip()
    value, made = shared_value(url, name, lambda: text)
    if made:
        return "copied"
    return "already there" if value == text else "the database's own kept (DATA_DIR's differs)"


def _connect_outside_transactions(url: str) -> Any:
    """An autocommit psycopg connection (a context manager that closes it, and with it its session locks)."""
    import psycopg

    from agent.store.postgres import CONNECT_TIMEOUT_S, DatabaseUnavailableError, one_line

    try:
        return psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True)
    except psycopg.OperationalError as e:
        raise DatabaseUnavailableError(f"cannot connect to DATABASE_URL: {one_line(e)}") from e


def cmd_migrate(args: argparse.Namespace) -> int:
    import psycopg
    from pydantic import ValidationError

    from agent.settings.app import get_settings
    from agent.store.checkpoint import CheckpointUnavailableError
    from agent.store.migrate import copy_checkpoints, copy_feedback, copy_kept_checks, postgres_only
    from agent.store.postgres import SCHEMA_LOCK, DatabaseUnavailableError, one_line
    from ui.chat.credentials import PASSWORD_FILE
    from ui.chat.launch import SECRET_FILE, app_root
    from ui.chat.persistence import copy_chat_tables

    settings = get_settings()
    if args.data_dir is not None:
        settings = settings.with_values(stores={"data_dir": args.data_dir})
    url = args.to or settings.stores.database_url
    if not url:
        raise CliError("give the Postgres to copy into: --to postgresql://... (or set DATABASE_URL)", EXIT_INPUT)
    try:
        url = postgres_only(settings, url).stores.database_url or url
    except ValidationError as e:
        raise CliError(f"--to {e.errors()[0]['msg']}", EXIT_INPUT) from e
    if not settings.stores.data_dir.is_dir():
        raise CliError(f"no DATA_DIR at {settings.stores.data_dir}: nothing to copy", EXIT_INPUT)
    try:
        # a session lock on a connection outside any transaction: an open transaction would hold up the checkpoint
        # saver's CREATE INDEX CONCURRENTLY, which waits for every transaction older than itself; taken by trying
        # again, since a blocking pg_advisory_lock waits in a transaction of its own (agent.store.checkpoint.take_lock)
        with _connect_outside_transactions(url) as lock:
            key = SCHEMA_LOCK + MIGRATE_LOCK_OFFSET
            while not lock.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                time.sleep(LOCK_POLL_S)
            print(f"copying {settings.stores.data_dir} into the Postgres database", file=sys.stderr)
            chat = copy_chat_tables(settings, url)
            lines = [chat[t].line(f"chat {t}") for t in chat]
            lines.append(copy_checkpoints(settings, url).line("checkpoints"))
            lines.append(copy_feedback(settings, url).line("feedback"))
            lines.append(copy_kept_checks(settings, url).line("checks kept for matching"))
            root = app_root(settings)
            lines.append(f"login secret: {_copy_shared(root, url, SECRET_FILE)}")
            lines.append(f"generated password's hash: {_copy_shared(root, url, PASSWORD_FILE)}")
    except (DatabaseUnavailableError, CheckpointUnavailableError) as e:
        raise CliError(str(e), EXIT_UNAVAILABLE) from e
    except psycopg.Error as e:  # what is copied stays; a second run copies the rest
        raise CliError(f"the copy stopped: {one_line(e)}", EXIT_UNAVAILABLE) from e
    print("\n".join(lines))
    return 0
