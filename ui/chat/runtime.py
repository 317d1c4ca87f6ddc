"""What the chat needs once per process: the thread graph with its checkpointer, and the pipeline's deps."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from agent.followup.deps import process_deps
from agent.followup.graph import build_thread_graph
from agent.settings.app import get_settings
from agent.state import Deps
from agent.store.checkpoint import open_checkpointer


@dataclass
class ChatRuntime:
    graph: Any
    deps: Deps


_lock = asyncio.Lock()
_runtime: ChatRuntime | None = None


async def chat_runtime() -> ChatRuntime:
    """Loaded on first use (or at start-up); a failed load is retried by the next turn."""
    global _runtime
    async with _lock:
        if _runtime is None:
            deps = await asyncio.to_thread(process_deps)
            saver = await open_checkpointer(get_settings())
            _runtime = ChatRuntime(graph=build_thread_graph(saver), deps=deps)
        return _runtime


def loaded_runtime() -> ChatRuntime | None:
    """The runtime when it is loaded already (None before the start-up's load has finished, or after it failed)."""
    return _runtime


def thread_config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


async def thread_values(thread_id: str) -> dict[str, Any]:
    """The thread's checkpointed state ({} for a thread that never ran)."""
    rt = await chat_runtime()
    snapshot = await rt.graph.aget_state(thread_config(thread_id))
    return dict(snapshot.values or {})


_writers: dict[str, asyncio.Lock] = {}


async def add_to_thread(thread_id: str, values: dict[str, Any]) -> dict[str, Any]:
    """Write ``values`` into the thread's state outside a graph run (a passage's checks, the check a follow-up is
    about), as the check node would; one write at a time per thread, so none is lost. Returns the new state."""
    rt = await chat_runtime()
    async with _writers.setdefault(thread_id, asyncio.Lock()):
        await rt.graph.aupdate_state(thread_config(thread_id), values, as_node="check")
    return await thread_values(thread_id)
