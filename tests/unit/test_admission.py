"""The chat's check queue (ui.chat.admission): slots, arrival order, places told as they change, waiters that leave."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from ui.chat.admission import CheckQueue


class Turn:
    """One chat turn: waits for a slot, records when it ran, holds the slot until released."""

    def __init__(self, queue: CheckQueue, name: str, log: list[str]) -> None:
        self.name, self.log, self.places = name, log, []
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.task = asyncio.create_task(self.run(queue))

    async def told(self, place: int) -> None:
        self.places.append(place)

    async def run(self, queue: CheckQueue) -> None:
        async with queue.slot(self.told):
            self.log.append(self.name)
            self.started.set()
            await self.release.wait()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_first_come_first_served_with_places():
    async def scenario() -> None:
        q, log = CheckQueue(2), []
        turns = [Turn(q, name, log) for name in "abcde"]
        await settle()
        assert log == ["a", "b"] and q.running == 2 and q.waiting == 3
        assert [t.places for t in turns] == [[], [], [1], [2], [3]]
        turns[1].release.set()
        await settle()
        assert log == ["a", "b", "c"] and q.running == 2
        assert turns[3].places == [2, 1] and turns[4].places == [3, 2]
        for t in turns:
            t.release.set()
        await asyncio.gather(*(t.task for t in turns))
        assert log == list("abcde") and q.running == 0 and q.waiting == 0

    asyncio.run(scenario())


def test_a_waiter_that_leaves_frees_its_place():
    async def scenario() -> None:
        q, log = CheckQueue(1), []
        a, b, c = (Turn(q, name, log) for name in "abc")
        await settle()
        b.task.cancel()
        await settle()
        assert c.places == [2, 1] and q.waiting == 1
        a.release.set()
        c.release.set()
        await asyncio.gather(a.task, c.task)
        assert log == ["a", "c"] and q.running == 0
        with pytest.raises(asyncio.CancelledError):
            await b.task

    asyncio.run(scenario())


def test_a_slot_handed_to_a_leaving_waiter_passes_on():
    async def scenario() -> None:
        q, log = CheckQueue(1), []
        a, b, c = (Turn(q, name, log) for name in "abc")
        await settle()
        a.release.set()
        await asyncio.sleep(0)  # a hands its slot to b ...
        b.task.cancel()  # ... which leaves before it runs
        c.release.set()
        # a slot lost with b would leave c waiting for ever: the wait is bounded to fail instead of hanging
        await asyncio.wait_for(asyncio.gather(a.task, c.task), 10)
        assert log == ["a", "c"] and q.running == 0 and q.waiting == 0

    asyncio.run(scenario())


def test_an_error_in_the_turn_frees_its_slot():
    async def scenario() -> None:
        q = CheckQueue(1)

        async def nothing(_: int) -> None:
            return None

        with pytest.raises(RuntimeError):
            async with q.slot(nothing):
                raise RuntimeError("the check failed")
        assert q.running == 0
        async with q.slot(nothing):
            assert q.running == 1

    asyncio.run(scenario())


def test_at_least_one_slot():
    with pytest.raises(ValueError):
        CheckQueue(0)


def test_places_are_told_in_the_waiters_own_context():
    """Chainlit sends a message to the session named in a context variable: a place told from the releasing
    turn's context would reach the wrong chat."""
    session: contextvars.ContextVar[str] = contextvars.ContextVar("session")

    async def scenario() -> None:
        q = CheckQueue(1)
        told: list[tuple[str, str, int]] = []
        gates = {name: asyncio.Event() for name in "abc"}

        async def turn(name: str) -> None:
            session.set(name)

            async def notify(place: int) -> None:
                told.append((name, session.get(), place))

            async with q.slot(notify):
                await gates[name].wait()

        tasks = [asyncio.create_task(turn(name)) for name in "abc"]
        await settle()
        for name in "abc":
            gates[name].set()
            await settle()
        await asyncio.gather(*tasks)
        assert ("c", "c", 1) in told  # c moved up when a left
        assert all(waiter == seen for waiter, seen, _ in told), told

    asyncio.run(scenario())


def test_a_user_waiting_in_the_chats_queue_makes_a_reading_keep_to_its_budget():
    """The chat registers its queue with the LLM's turns: while a user waits there for a check of their own, a check
    reading its papers keeps to DIRECTION_SECONDS (agent.nodes.judge_sources.out_of_time); with nobody waiting it reads
    on."""
    from agent.llm.turns import TURNS
    from ui.chat.queued import CHECKS

    assert isinstance(CHECKS, CheckQueue)

    async def scenario() -> None:
        log: list[str] = []
        assert not TURNS.others_waiting()
        turns = [Turn(CHECKS, str(k), log) for k in range(CHECKS.slots - CHECKS.running + 1)]
        await settle()
        assert CHECKS.waiting == 1 and TURNS.others_waiting()
        for t in turns:
            t.release.set()
        await asyncio.gather(*(t.task for t in turns))
        assert CHECKS.waiting == 0 and not TURNS.others_waiting()

    asyncio.run(scenario())
