"""A thread deleted for good, outside Chainlit's own records: its LangGraph checkpoints (every checkpoint and pending
write, on SQLite or Postgres, through the saver's `adelete_thread`), its feedback rows and its kept checks' entries
(agent.store.kept_checks), so that a later claim is no longer matched to them. The chat's delete button
(ui.chat.paste.PasteDataLayer.delete_thread) and `claimtrace threads delete` both call it, after Chainlit's steps,
elements and thread row are gone.

Which kept checks cite a document is read here too: `claimtrace library list` shows it beside each document."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from agent.settings.app import Settings
from agent.store.checkpoint import close_checkpointer, open_checkpointer
from agent.store.feedback import delete_feedback
from agent.store.kept_checks import forget_kept
from agent.store.threads import MIN_PREFIX, ThreadNotFoundError, has_store, list_threads
from tools.corpus import Abstract


@dataclass(frozen=True)
class Forgotten:
    thread_id: str
    had_checkpoints: bool
    feedback_rows: int
    kept_checks: int = 0


async def forget_thread(saver: Any, settings: Settings, thread_id: str) -> Forgotten:
    """Delete the thread's checkpoints, feedback rows and kept checks; a thread that has none is no error."""
    had = await saver.aget_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}) is not None
    await saver.adelete_thread(thread_id)
    rows = await asyncio.to_thread(delete_feedback, settings, thread_id)
    kept = await asyncio.to_thread(forget_kept, settings, thread_id)
    return Forgotten(thread_id, had, rows, kept)


async def _with_saver(settings: Settings, work: Any) -> Any:
    saver = await open_checkpointer(settings)
    try:
        return await work(saver)
    finally:
        await close_checkpointer(saver)


def resolve(settings: Settings, wanted: str) -> str | None:
    """The thread id `wanted` names in the checkpoint store (its whole id, or a prefix of at least MIN_PREFIX
    characters that only one id starts with), or None when no checkpoint is kept for it. Raises
    ThreadNotFoundError when a prefix names several."""
    if not has_store(settings):
        return None

    async def find(saver: Any) -> str | None:
        if await saver.aget_tuple({"configurable": {"thread_id": wanted, "checkpoint_ns": ""}}) is not None:
            return wanted
        listed = await list_threads(saver) if len(wanted) >= MIN_PREFIX else []
        matches = [s.thread_id for s in listed if s.thread_id.startswith(wanted)]
        if len(matches) > 1:
            raise ThreadNotFoundError(f"{len(matches)} threads start with {wanted!r}; give more of the id")
        return matches[0] if matches else None

    result: str | None = asyncio.run(_with_saver(settings, find))
    return result


def delete_thread(settings: Settings, thread_id: str) -> Forgotten:
    """`forget_thread` in the configured store."""
    if not has_store(settings):
        rows = delete_feedback(settings, thread_id)
        return Forgotten(thread_id, False, rows)
    result: Forgotten = asyncio.run(_with_saver(settings, lambda saver: forget_thread(saver, settings, thread_id)))
    return result


async def cited_documents(saver: Any) -> dict[str, list[str]]:
    """doc id -> the threads whose kept checks cite it (a source of any check in the thread's latest state)."""
    latest: dict[str, tuple[str, Any]] = {}
    async for tup in saver.alist(None):
        conf = tup.config["configurable"]
        ts = str(tup.checkpoint.get("ts", ""))
        if not conf.get("checkpoint_ns", "") and (conf["thread_id"] not in latest or ts > latest[conf["thread_id"]][0]):
            latest[conf["thread_id"]] = (ts, tup.checkpoint.get("channel_values", {}).get("results", []))
    cited: dict[str, list[str]] = {}
    for thread_id, (_, results) in latest.items():
        for result in results if isinstance(results, list) else []:
            for source in result.get("sources", []) if isinstance(result, dict) else []:
                doc_id = source.get("doc_id") if isinstance(source, dict) else None
                if doc_id and thread_id not in cited.setdefault(str(doc_id), []):
                    cited[str(doc_id)].append(thread_id)
    return cited


def kept_and_citing(settings: Settings) -> tuple[list[Abstract], dict[str, list[str]], list[str]]:
    """The kept documents (tools.index.kept.kept_documents, in the order they entered the index), the threads whose
    kept checks cite each, and notes: a thread store that cannot be read costs the citing threads, with a note, never
    the list."""
    from tools.index.kept import kept_documents  # the library's readers load only when a listing asks

    docs = kept_documents(settings.stores.index_dir)
    notes: list[str] = []
    cited: dict[str, list[str]] = {}
    if docs:
        try:
            cited = citing_threads(settings)
        except Exception as e:  # any store fault: the list is shown without the column
            notes.append(f"which checks cite a document is unknown ({type(e).__name__}: {e})")
    return docs, cited, notes


def citing_threads(settings: Settings) -> dict[str, list[str]]:
    """`cited_documents` of the configured store ({} when there is none)."""
    if not has_store(settings):
        return {}
    result: dict[str, list[str]] = asyncio.run(_with_saver(settings, cited_documents))
    return result
