"""The chat's one check queue (ui.chat.admission; with DATABASE_URL and an LLM server, the server's, shared by every
instance), the message that tells a waiting user their place in it, and one turn at a time on each thread."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import chainlit as cl

from agent.llm.turns import TURNS
from agent.settings.app import get_settings
from ui.chat.admission import check_queue

CHECKS = check_queue(get_settings())
# a check reading its papers keeps to its time budget while users wait in this queue
TURNS.count_also(lambda: CHECKS.waiting)
_THREAD_TURNS: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def thread_turn(thread_id: str) -> asyncio.Lock:
    """The lock that runs one turn at a time on a thread in this process. A question sent as soon as the verdict shows
    ("the sources behind sentence 1?") would otherwise run the graph on the thread while its check still writes the
    answer and the papers' summaries: two runs on one thread race on its checkpoints, and the question can go
    unanswered. The lock lives as long as a turn holds or awaits it."""
    lock = _THREAD_TURNS.get(thread_id)
    if lock is None:
        lock = _THREAD_TURNS[thread_id] = asyncio.Lock()
    return lock


EARLIER_TURN = (
    "⏳ This thread's last check is still finishing (its answer or its papers' generated summaries); your message is "
    "answered as soon as it is done."
)


@asynccontextmanager
async def own_turn(thread_id: str) -> AsyncIterator[None]:
    """Hold the thread's turn (`thread_turn`) for the body. While an earlier turn on the thread still runs, a message
    says what the user's message waits for, and goes once its turn starts."""
    lock = thread_turn(thread_id)
    notice: cl.Message | None = None
    if lock.locked():
        notice = cl.Message(content=EARLIER_TURN)
        await notice.send()
    try:
        async with lock:
            if notice is not None:
                await notice.remove()
                notice = None
            yield
    finally:
        if notice is not None:  # cancelled while waiting
            await notice.remove()


@asynccontextmanager
async def queue_slot() -> AsyncIterator[None]:
    """Hold one of the queue's slots for the body, showing the user their place while they wait."""
    notice = QueueNotice()
    try:
        async with CHECKS.slot(notice.show):
            await notice.close()
            yield
    finally:
        await notice.close()


class QueueNotice:
    """The message that tells a waiting user their place in the queue; removed when their check starts. Places
    arrive from background tasks, so a lock keeps one message and a closed notice ignores late ones."""

    def __init__(self) -> None:
        self.message: cl.Message | None = None
        self.closed = False
        self.lock = asyncio.Lock()

    async def show(self, place: int) -> None:
        async with self.lock:
            if self.closed:
                return
            content = (
                f"⏳ Queued: number {place} in line. {CHECKS.slots} check(s) run at a time here; yours starts as "
                "soon as one ahead of it finishes."
            )
            if self.message is None:
                self.message = cl.Message(content=content)
                await self.message.send()
            else:
                self.message.content = content
                await self.message.update()

    async def close(self) -> None:
        async with self.lock:
            if not self.closed and self.message is not None:
                await self.message.remove()
            self.closed = True
