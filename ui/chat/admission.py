"""First come, first served admission for the chat's checks: at most `slots` turns run the pipeline at once (the
embedded LLM answers one request at a time, so more would only wait inside it, unseen); the others wait in arrival
order and are told their place in the queue each time it changes, in the waiter's own context (Chainlit finds the
session a message goes to in a context variable). A waiter that goes away (the user left, the
server stops the task) leaves the queue, and a slot it was handed passes on to the next one.

With DATABASE_URL and an LLM server, the queue is the server's, shared by every instance (`SharedCheckQueue`)."""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

from agent.llm.turns import llm_server
from agent.settings.app import Settings
from tools.admission import POLL_S, SharedAdmission, check_rule, shared_admission
from tools.admission import place as place_of

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


class SharedCheckQueue:
    """The check queue of one LLM server, shared by every instance on DATABASE_URL's Postgres (tools.admission):
    at most `slots` checks run at once between them, first come first served, each waiter told its place in the
    whole line whenever it changes. `running` and `waiting` count this instance's own checks."""

    def __init__(self, admission: SharedAdmission, server: str, slots: int) -> None:
        if slots < 1:
            raise ValueError("a check queue needs at least one slot")
        self.admission, self.server, self.slots = admission, server, slots
        self.rule = check_rule(slots)
        self.running = 0
        self.waiting = 0

    @asynccontextmanager
    async def slot(self, on_position: Notify) -> AsyncIterator[None]:
        """Hold one of the server's slots for the body; while waiting, `on_position(k)` is awaited with the 1-based
        place in the server's line whenever it changes."""
        row = await self._wait(on_position)
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1
            await asyncio.shield(asyncio.to_thread(self.admission.leave, self.server, row))

    async def _wait(self, on_position: Notify) -> int:
        row = await asyncio.to_thread(self.admission.enter, self.server, "check")
        told = 0
        self.waiting += 1
        try:
            while True:
                rows = await asyncio.to_thread(self.admission.decide, self.server, self.rule)
                at = place_of(rows, row, "check")
                if at == 0:
                    return row
                if at is None:  # swept while this process's connection was lost: back in line
                    row = await asyncio.to_thread(self.admission.enter, self.server, "check")
                    continue
                if at != told:
                    told = at
                    await on_position(at)
                await asyncio.sleep(POLL_S)
        except BaseException:
            await asyncio.shield(asyncio.to_thread(self.admission.leave, self.server, row))
            raise
        finally:
            self.waiting -= 1


def check_queue(settings: Settings) -> CheckQueue | SharedCheckQueue:
    """The chat's check queue: shared by every instance with DATABASE_URL and an LLM server (LLM_BASE_URL), else this
    process's own."""
    server, url = llm_server(settings), settings.stores.database_url
    if server and url:
        return SharedCheckQueue(shared_admission(url), server, settings.ui.checks_at_once)
    return CheckQueue(settings.ui.checks_at_once)
