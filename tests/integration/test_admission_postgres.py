"""Admission across instances (DATABASE_URL and one LLM server), on a real PostgreSQL server on loopback started by the
test, each test in a database of its own: two check queues on separate connections (two instances) admit at most
the configured number of checks between them, in arrival order, and tell each waiter its place in the whole line; a
process killed while it holds a slot frees it; the LLM's turns keep one reading at a time across instances (two with
LLM_PARALLEL=2), and a call of one instance waits while a check of the other reads, which sees it waiting."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg

from agent.llm.turns import LLMTurns, SharedTurns
from agent.settings.app import Settings
from tests.integration.test_checkpoint_postgres import postgres  # noqa: F401
from tests.integration.test_database_postgres import database  # noqa: F401
from tools.admission import TABLE, SharedAdmission
from ui.chat.admission import CheckQueue, SharedCheckQueue, check_queue

REPO = Path(__file__).resolve().parents[2]
SERVER = "http://llm.example:8080/v1"
SETTLE_S = 1.5  # several polls (tools.admission.POLL_S) of every waiter


class Turn:
    """One chat turn on one instance's queue: records its places and when it ran, holds its slot until released."""

    def __init__(self, queue: SharedCheckQueue, name: str, log: list[str], inside: list[int]) -> None:
        self.name, self.log, self.inside = name, log, inside
        self.places: list[int] = []
        self.release, self.started = asyncio.Event(), asyncio.Event()
        self.task = asyncio.create_task(self.run(queue))

    async def told(self, place: int) -> None:
        self.places.append(place)

    async def run(self, queue: SharedCheckQueue) -> None:
        async with queue.slot(self.told):
            self.log.append(self.name)
            self.inside[0] += 1
            self.inside[1] = max(self.inside)
            self.started.set()
            await self.release.wait()
            self.inside[0] -= 1


async def until(condition, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def two_instances(url: str, slots: int) -> tuple[SharedCheckQueue, SharedCheckQueue]:
    return SharedCheckQueue(SharedAdmission(url), SERVER, slots), SharedCheckQueue(SharedAdmission(url), SERVER, slots)


def test_two_instances_admit_at_most_the_slots_between_them_in_arrival_order(database: str) -> None:  # noqa: F811
    async def scenario() -> None:
        a, b = two_instances(database, 2)
        log: list[str] = []
        inside = [0, 0]  # running now, most at once
        turns: list[Turn] = []
        for k, name in enumerate("abcdef"):  # arrivals alternate between the instances, one after the other
            turns.append(Turn((a, b)[k % 2], name, log, inside))
            await until(lambda: turns[-1].started.is_set() or turns[-1].places)
        assert log == ["a", "b"] and inside[0] == 2
        assert [t.places for t in turns] == [[], [], [1], [2], [3], [4]]
        await asyncio.sleep(SETTLE_S)
        assert log == ["a", "b"]  # the other instance's free capacity does not admit a third
        for k, t in enumerate(turns):  # each release lets the first in line in, who is waited for, not slept on
            t.release.set()
            if k + 2 < len(turns):
                await until(turns[k + 2].started.is_set)
        await asyncio.wait_for(asyncio.gather(*(t.task for t in turns)), 30)
        assert log == list("abcdef") and inside[1] == 2

    asyncio.run(scenario())
    with psycopg.connect(database) as conn:
        assert conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0] == 0


def test_each_waiter_is_told_its_place_in_the_whole_line_as_it_changes(database: str) -> None:  # noqa: F811
    async def scenario() -> None:
        a, b = two_instances(database, 1)
        log: list[str] = []
        inside = [0, 0]
        first = Turn(a, "a", log, inside)
        await until(first.started.is_set)
        waiters = []
        for queue, name in ((b, "b"), (a, "c"), (b, "d")):
            waiters.append(Turn(queue, name, log, inside))
            await until(lambda: waiters[-1].places)
        assert [w.places for w in waiters] == [[1], [2], [3]]
        assert (a.waiting, b.waiting, a.running, b.running) == (1, 2, 1, 0)
        waiters[1].task.cancel()  # c leaves the line: d moves up
        await until(lambda: waiters[2].places[-1:] == [2])
        first.release.set()
        await until(waiters[0].started.is_set)
        await until(lambda: waiters[2].places[-1:] == [1])
        assert log == ["a", "b"] and waiters[2].places == [3, 2, 1]
        waiters[0].release.set()
        await until(waiters[2].started.is_set)
        waiters[2].release.set()
        await asyncio.wait_for(asyncio.gather(first.task, waiters[0].task, waiters[2].task), 30)
        assert log == ["a", "b", "d"] and inside[1] == 1

    asyncio.run(scenario())


HOLDER = """
import asyncio, sys
from tools.admission import SharedAdmission
from ui.chat.admission import SharedCheckQueue

async def main():
    queue = SharedCheckQueue(SharedAdmission(sys.argv[1]), sys.argv[2], 1)
    async def told(place):
        pass
    async with queue.slot(told):
        print("holding", flush=True)
        await asyncio.sleep(600)

asyncio.run(main())
"""


def test_a_process_killed_while_it_holds_a_slot_frees_it(database: str) -> None:  # noqa: F811
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, database, SERVER], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "holding"

        async def scenario() -> None:
            queue = SharedCheckQueue(SharedAdmission(database), SERVER, 1)
            log: list[str] = []
            waiter = Turn(queue, "w", log, [0, 0])
            await until(lambda: waiter.places)
            await asyncio.sleep(SETTLE_S)
            assert waiter.places == [1] and log == []  # the live holder keeps its slot
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
            await until(waiter.started.is_set, timeout=10)
            waiter.release.set()
            await asyncio.wait_for(waiter.task, 10)

        asyncio.run(scenario())
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)


def reading_spans(turns: list[LLMTurns], seconds: float) -> list[tuple[float, float]]:
    """Each instance's check reads once, all at the same moment; when each reading ran."""
    spans: list[tuple[float, float]] = []
    go = threading.Barrier(len(turns))

    def read(t: LLMTurns) -> None:
        go.wait()
        with t.reading():
            start = time.monotonic()
            time.sleep(seconds)
            spans.append((start, time.monotonic()))

    threads = [threading.Thread(target=read, args=(t,)) for t in turns]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    return sorted(spans)


def shared_turns(url: str, parallel: int) -> LLMTurns:
    return LLMTurns(parallel, SharedTurns(SharedAdmission(url), SERVER, parallel))


def test_one_check_reads_at_a_time_across_instances_and_two_with_llm_parallel_2(database: str) -> None:  # noqa: F811
    one = reading_spans([shared_turns(database, 1), shared_turns(database, 1)], 1.0)
    assert len(one) == 2 and one[0][1] <= one[1][0]
    two = reading_spans([shared_turns(database, 2), shared_turns(database, 2)], 1.0)
    assert len(two) == 2 and two[1][0] < two[0][1]


def test_a_call_of_one_instance_waits_while_a_check_of_another_reads_and_the_reader_sees_it_wait(
    database: str,  # noqa: F811
) -> None:
    """The reading's time budget binds only while someone waits (agent.nodes.judge_sources.out_of_time): the reader
    sees the other instance's call waiting, and nobody before it comes."""
    a, b = shared_turns(database, 1), shared_turns(database, 1)
    log: list[str] = []
    reading, release = threading.Event(), threading.Event()

    def reader() -> None:
        with a.reading():
            reading.set()
            release.wait(10)
            log.append("reading ends")

    def call() -> None:
        with b.call():
            log.append("other instance's call")

    r = threading.Thread(target=reader)
    r.start()
    assert reading.wait(10)
    assert not a.others_waiting()  # its own running turn is no one waiting
    c = threading.Thread(target=call)
    c.start()
    deadline = time.monotonic() + 15
    while not a.others_waiting():  # the other instance's call is in line: waited for, not slept on
        assert time.monotonic() < deadline, "the other instance's call never waited"
        time.sleep(0.05)
    time.sleep(SETTLE_S)  # several polls of the waiting call, which must not get in while the reading runs
    assert log == []
    assert a.others_waiting() and b.others_waiting()
    release.set()
    r.join(10)
    c.join(10)
    assert log == ["reading ends", "other instance's call"]


def test_the_queue_is_shared_only_with_database_url_and_an_llm_server() -> None:
    base = Settings(_env_file=None)  # type: ignore[call-arg]
    url = "postgresql://u@127.0.0.1:1/db"
    assert isinstance(check_queue(base), CheckQueue)
    assert isinstance(check_queue(base.with_values(stores={"database_url": url})), CheckQueue)  # embedded LLM
    assert isinstance(check_queue(base.with_values(llm={"base_url": SERVER})), CheckQueue)  # no shared database
    shared = check_queue(base.with_values(stores={"database_url": url}, llm={"base_url": SERVER + "/"}))
    assert isinstance(shared, SharedCheckQueue) and shared.server == SERVER and shared.slots == 2
