"""The thread store outside the chat: the threads it holds, the checks of one thread, and a check from the command
line kept as a thread of its own, so that `claimtrace export` finds chat and CLI checks alike.

A thread's state is the thread graph's (agent.followup.state.ThreadState); its `results` are the CheckResult dumps
of its checks, oldest first. Everything here goes through the checkpointer's public API (alist, aget_tuple) and the
thread graph's aupdate_state, so it works on the SQLite store and on Postgres alike. The synchronous functions open
the store, do one thing and close it again."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from agent.settings.app import Settings
from agent.store.checkpoint import SQLITE_NAME, close_checkpointer, open_checkpointer

T = TypeVar("T")
MIN_PREFIX = 4  # shortest id prefix that names a thread


class ThreadNotFoundError(LookupError):
    """No thread has this id (or more than one starts with it); the message says which."""


@dataclass(frozen=True)
class ThreadSummary:
    thread_id: str
    updated_at: str  # ISO 8601 time of its latest checkpoint
    checks: int
    claim: str  # the claim of its latest check ("" when it has none)


def _config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


def _results(checkpoint: dict[str, Any]) -> list[dict[str, Any]]:
    results = checkpoint.get("channel_values", {}).get("results", [])
    return list(results) if isinstance(results, list) else []


async def list_threads(saver: Any) -> list[ThreadSummary]:
    """Every thread in the store, most recently updated first. The store lists checkpoints, not threads: the newest
    top-level checkpoint of each thread stands for it."""
    latest: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    async for tup in saver.alist(None):
        conf = tup.config["configurable"]
        if conf.get("checkpoint_ns", ""):
            continue  # a subgraph's checkpoint
        ts = str(tup.checkpoint.get("ts", ""))
        if conf["thread_id"] not in latest or ts > latest[conf["thread_id"]][0]:
            latest[conf["thread_id"]] = (ts, _results(tup.checkpoint))
    summaries = [
        ThreadSummary(tid, ts, len(results), str(results[-1].get("claim", "")) if results else "")
        for tid, (ts, results) in latest.items()
    ]
    return sorted(summaries, key=lambda s: s.updated_at, reverse=True)


async def thread_results(saver: Any, thread_id: str) -> list[dict[str, Any]] | None:
    """The checks of one thread (CheckResult dumps, oldest first), or None when the store has no such thread."""
    tup = await saver.aget_tuple(_config(thread_id))
    return None if tup is None else _results(tup.checkpoint)


async def resolve_thread(saver: Any, wanted: str) -> str:
    """The id of the thread named by `wanted`: its whole id, or a prefix of at least MIN_PREFIX characters that only
    one thread's id starts with. Raises ThreadNotFoundError."""
    if await saver.aget_tuple(_config(wanted)) is not None:
        return wanted
    matches = [s.thread_id for s in await list_threads(saver)] if len(wanted) >= MIN_PREFIX else []
    matches = [tid for tid in matches if tid.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ThreadNotFoundError(f"{len(matches)} threads start with {wanted!r}; give more of the id")
    raise ThreadNotFoundError(f"no thread {wanted!r} in the thread store (`claimtrace threads` lists them)")


async def save_check(saver: Any, result: dict[str, Any], thread_id: str | None = None) -> str:
    """Keep one check (a CheckResult dump) as a new thread, as if the chat's check had run to its end (the generated
    summaries of its papers, as far as they were written, are in the dump); returns the thread's id. A chat does not
    list it (the chat's own thread list is Chainlit's), but export and the thread graph read it like any other."""
    from agent.followup.graph import build_thread_graph

    thread_id = thread_id or str(uuid.uuid4())
    claim = str(result.get("claim", ""))
    values = {
        "message": claim,
        "action": "check",
        "query": claim,
        "results": [result],
        "reply": {"kind": "check", "claim": claim},
    }
    await build_thread_graph(saver).aupdate_state(
        {"configurable": {"thread_id": thread_id}}, values, as_node="supplement"
    )
    return thread_id


def has_store(settings: Settings) -> bool:
    """Whether there can be a thread store to read: a Postgres URL, or the SQLite file. Reading never creates one."""
    return bool(settings.stores.thread_store_url) or (settings.stores.data_dir / SQLITE_NAME).is_file()


async def _with_saver(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    saver = await open_checkpointer(settings)
    try:
        return await work(saver)
    finally:
        await close_checkpointer(saver)


def threads(settings: Settings) -> list[ThreadSummary]:
    """`list_threads` of the configured store ([] when there is none yet)."""
    if not has_store(settings):
        return []
    return asyncio.run(_with_saver(settings, list_threads))


def checks_of(settings: Settings, wanted: str) -> tuple[str, list[dict[str, Any]]]:
    """The thread named by `wanted` (see resolve_thread) and its checks. Raises ThreadNotFoundError."""
    if not has_store(settings):
        raise ThreadNotFoundError(f"no thread {wanted!r}: the thread store is empty")

    async def read(saver: Any) -> tuple[str, list[dict[str, Any]]]:
        thread_id = await resolve_thread(saver, wanted)
        return thread_id, await thread_results(saver, thread_id) or []

    return asyncio.run(_with_saver(settings, read))


def keep_check(settings: Settings, result: dict[str, Any]) -> str:
    """`save_check` in the configured store (created when missing); returns the new thread's id."""
    return asyncio.run(_with_saver(settings, lambda saver: save_check(saver, result)))
