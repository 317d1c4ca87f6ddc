"""What `claimtrace migrate` copies of the agent's stores from a SQLite DATA_DIR into DATABASE_URL's Postgres: the
thread checkpoints (through both savers' public API), the feedback rows and the kept checks' claim embeddings (so that
claims checked before are still found). A second copy writes nothing twice: a checkpoint already in Postgres (same
thread, namespace and id) is skipped, and so is a feedback row identical in time, thread, kind and record, and a kept
check whose id is there. The chat's own tables are copied by ui.chat.persistence.copy_chat_tables."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from agent.settings.app import Settings
from agent.store.checkpoint import SQLITE_NAME, close_checkpointer, open_checkpointer
from agent.store.feedback import PG_SCHEMA, db_path
from agent.store.kept_checks import COLUMNS, TABLE, KeptCheck, kept_checks
from agent.store.postgres import connect, ensure_schema


@dataclass
class Copied:
    """Rows of one kind: written now, found there already, and left out (with why)."""

    copied: int = 0
    present: int = 0
    skipped: int = 0
    why_skipped: str = ""

    def line(self, what: str) -> str:
        out = f"{what}: {self.copied} copied, {self.present} already there"
        return out + (f", {self.skipped} left out ({self.why_skipped})" if self.skipped else "")


def sqlite_only(settings: Settings) -> Settings:
    """The settings with every store in DATA_DIR's SQLite files: the source of a copy."""
    return settings.with_values(stores={"database_url": None, "checkpoint_url": None})


def postgres_only(settings: Settings, url: str) -> Settings:
    """The settings with every store in the Postgres at `url`: the target of a copy."""
    return settings.with_values(stores={"database_url": url, "checkpoint_url": None})


async def _copy_checkpoints(source: Settings, target: Settings) -> Copied:
    done = Copied()
    src = await open_checkpointer(source)
    try:
        dst = await open_checkpointer(target)
        try:
            async with dst.conn.connection() as conn:
                cur = await conn.execute("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints")
                there = {(r["thread_id"], r["checkpoint_ns"], r["checkpoint_id"]) for r in await cur.fetchall()}
            async for tup in src.alist(None):
                conf = tup.config["configurable"]
                key = (conf["thread_id"], conf.get("checkpoint_ns", ""), conf["checkpoint_id"])
                if key in there:
                    done.present += 1
                    continue
                # the pending writes first, the checkpoint last: a copy stopped in between leaves the checkpoint
                # missing, so the next copy writes it (and its writes again, which Postgres keeps once)
                by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
                for task_id, channel, value in tup.pending_writes or []:
                    by_task[task_id].append((channel, value))
                for task_id, writes in by_task.items():
                    await dst.aput_writes(tup.config, writes, task_id)
                parent = tup.parent_config["configurable"]["checkpoint_id"] if tup.parent_config else None
                config: dict[str, Any] = {"configurable": {"thread_id": key[0], "checkpoint_ns": key[1]}}
                if parent:
                    config["configurable"]["checkpoint_id"] = parent
                await dst.aput(config, tup.checkpoint, tup.metadata, dict(tup.checkpoint["channel_versions"]))
                done.copied += 1
        finally:
            await close_checkpointer(dst)
    finally:
        await close_checkpointer(src)
    return done


def copy_checkpoints(settings: Settings, url: str) -> Copied:
    """Every checkpoint (and pending write) of DATA_DIR's thread store into the Postgres at `url`."""
    source = sqlite_only(settings)
    if not (source.stores.data_dir / SQLITE_NAME).is_file():
        return Copied()
    return asyncio.run(_copy_checkpoints(source, postgres_only(settings, url)))


def copy_feedback(settings: Settings, url: str) -> Copied:
    """Every row of DATA_DIR's feedback file into the Postgres at `url`, oldest first (ids are Postgres's own)."""
    done = Copied()
    path = db_path(settings.stores.data_dir)
    if not path.is_file():
        return done
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT created_at, thread_id, kind, record FROM feedback ORDER BY id").fetchall()
    finally:
        conn.close()
    ensure_schema(url, PG_SCHEMA)
    with connect(url) as pg:
        for row in rows:
            added = pg.execute(
                "INSERT INTO feedback (created_at, thread_id, kind, record) SELECT %s, %s, %s, %s WHERE NOT EXISTS "
                "(SELECT 1 FROM feedback WHERE created_at = %s AND thread_id = %s AND kind = %s AND record = %s)",
                (*row, *row),
            ).rowcount
            done.copied += added
            done.present += 1 - added
    return done


def copy_kept_checks(settings: Settings, url: str) -> Copied:
    """Every kept check of DATA_DIR's thread store, with its claim's embedding, into the Postgres at `url`, oldest
    first; a check whose id is there already is left as it is."""
    import numpy as np

    done = Copied()
    path = settings.stores.data_dir / SQLITE_NAME
    if not path.is_file():
        return done
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(f"SELECT {COLUMNS}, embedding FROM {TABLE} ORDER BY seq").fetchall()
    except sqlite3.OperationalError:  # a store from before checks were kept for matching
        rows = []
    finally:
        conn.close()
    with kept_checks(postgres_only(settings, url)) as target:
        before = target.count()
        target.add_many([(KeptCheck(*row[:-1]), np.frombuffer(row[-1], dtype="<f4")) for row in rows])
        done.copied = target.count() - before
    done.present = len(rows) - done.copied
    return done
