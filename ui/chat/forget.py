"""The chat's data layer: Chainlit's SQLAlchemy layer with over-long messages kept short (ui.chat.paste), whose
delete_thread (the thread list's delete button) also deletes what claimtrace keeps of the thread: its checkpoints
and feedback rows (agent.store.forget) and the files its sessions wrote (ui.chat.session_files), so that a deleted
thread is gone. Each step a session stores marks that session's files folder with its thread.

Chainlit stores each send and update of a message in a task of its own, started and never awaited, so two updates
close together (an answer, then its papers' summaries: ui.chat.answer_stream) could be stored in either order, and a
reopened thread show an older text. The writes of one step wait for each other here, in the order they were started:
a task runs until its first await, and asyncio's lock hands itself over first come, first served.

A message's removal (a waiting notice going once its turn starts: ui.chat.queued) is one of its writes too, so it
comes after the message's own creation. A step written for a message or a thread this process has deleted (a late
update of one of its messages, a session of it still open) is dropped: it would put the rows back, show a removed
notice in a reopened thread, or mark a files folder with a deleted thread again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer

from agent.settings.app import get_settings
from agent.store.forget import forget_thread
from ui.chat.launch import app_root
from ui.chat.paste import PasteDataLayer
from ui.chat.persistence import database_url
from ui.chat.session_files import delete_thread_files, mark_current_session


class ChatDataLayer(PasteDataLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writes: dict[str, tuple[asyncio.Lock, int]] = {}  # step id -> its lock, writes waiting or running
        self._deleted: set[str] = set()  # threads deleted through this layer
        self._removed: set[str] = set()  # steps deleted through this layer

    @asynccontextmanager
    async def _step_write(self, step: str) -> AsyncIterator[None]:
        """Hold the step's turn to write: the writes of one step run one at a time, in the order they started."""
        lock, waiting = self._writes.get(step, (asyncio.Lock(), 0))
        self._writes[step] = (lock, waiting + 1)
        try:
            async with lock:
                yield
        finally:
            lock, waiting = self._writes[step]
            if waiting > 1:
                self._writes[step] = (lock, waiting - 1)
            else:
                del self._writes[step]

    async def create_step(self, step_dict: Any) -> None:
        step = str(step_dict.get("id"))
        async with self._step_write(step):
            if step in self._removed or str(step_dict.get("threadId")) in self._deleted:
                return
            mark_current_session()
            await super().create_step(step_dict)

    async def delete_step(self, step_id: str) -> None:
        async with self._step_write(str(step_id)):
            self._removed.add(str(step_id))
            await super().delete_step(step_id)

    async def delete_thread(self, thread_id: str) -> None:
        from ui.chat.runtime import chat_runtime  # loaded by then: the chat's first page load started it

        self._deleted.add(thread_id)
        await super().delete_thread(thread_id)
        runtime = await chat_runtime()
        await forget_thread(runtime.graph.checkpointer, get_settings(), thread_id)
        await asyncio.to_thread(delete_thread_files, app_root(get_settings()), thread_id)


def chat_data_layer() -> SQLAlchemyDataLayer:
    return ChatDataLayer(conninfo=database_url(get_settings()))
