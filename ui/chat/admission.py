"""First come, first served admission for the chat's checks: at most `slots` turns run the pipeline at once (the
embedded LLM answers one request at a time, so more would only wait inside it, unseen); the others wait in arrival
order and are told their place in the queue each time it changes, in the waiter's own context (Chainlit finds the
session a message goes to in a context variable). A waiter that goes away (the user left, the
server stops the task) leaves the queue, and a slot it was handed passes on to the next one."""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

Notify = Callable[[int], Coroutine[Any, Any, None]]


class CheckQueue:
    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("a check queue needs at least one slot")
        self.slots = slots
        self.running = 0
        self._waiting: deque[tuple[asyncio.Future[None], Notify, contextvars.Context]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @asynccontextmanager
    async def slot(self, on_position: Notify) -> AsyncIterator[None]:
        """Hold one slot for the body; while waiting, `on_position(k)` is awaited with the 1-based place in the
        queue whenever it changes."""
        if self.running < self.slots and not self._waiting:
            self.running += 1
        else:
            await self._wait(on_position)
        try:
            yield
        finally:
            self._release()

    async def _wait(self, on_position: Notify) -> None:
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((turn, on_position, contextvars.copy_context()))
        await on_position(len(self._waiting))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release()  # the slot was handed over just as the waiter left: pass it on
            else:
                self._forget(turn)
            raise

    def _forget(self, turn: asyncio.Future[None]) -> None:
        self._waiting = deque(w for w in self._waiting if w[0] is not turn)
        self._announce()

    def _release(self) -> None:
        while self._waiting:
            turn, _, _ = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)  # the slot goes straight to the next waiter: `running` is unchanged
                self._announce()
                return
        self.running -= 1

    def _announce(self) -> None:
        """Tell every waiter its new place (in the background: a slow client must not hold up the queue)."""
        loop = asyncio.get_running_loop()
        for place, (_, notify, context) in enumerate(self._waiting, start=1):
            task = loop.create_task(notify(place), context=context)
            _notices.add(task)
            task.add_done_callback(_notices.discard)


_notices: set[asyncio.Task[None]] = set()
