"""A check's reading of its papers goes first at the LLM (agent.llm.turns): other calls wait while it reads or waits
to read, and it starts only once the calls already under way have ended."""

from __future__ import annotations

import threading
import time

from agent.llm.turns import LLMTurns


def started(target, *args) -> threading.Thread:  # type: ignore[no-untyped-def]
    t = threading.Thread(target=target, args=args, daemon=True)
    t.start()
    return t


def test_a_call_waits_while_a_check_reads_and_the_readers_own_calls_do_not():
    turns, log = LLMTurns(), []
    reading, release = threading.Event(), threading.Event()

    def reader() -> None:
        with turns.reading():
            with turns.call():  # the reading's own call: no deadlock
                log.append("reader's call")
            reading.set()
            release.wait(5)
            log.append("reading ends")

    def other() -> None:
        with turns.call():
            log.append("other call")

    r = started(reader)
    assert reading.wait(5)
    o = started(other)
    time.sleep(0.2)
    assert log == ["reader's call"]  # the other call is held while the check reads
    release.set()
    r.join(5)
    o.join(5)
    assert log == ["reader's call", "reading ends", "other call"]


def test_a_reader_starts_after_the_call_in_flight_and_before_calls_that_come_after_it():
    turns, log = LLMTurns(), []
    in_call, finish_call = threading.Event(), threading.Event()

    def first_call() -> None:
        with turns.call():
            in_call.set()
            finish_call.wait(5)
            log.append("call in flight ends")

    def reader() -> None:
        with turns.reading():
            log.append("reading starts")

    def later_call() -> None:
        with turns.call():
            log.append("later call")

    c = started(first_call)
    assert in_call.wait(5)
    r = started(reader)
    time.sleep(0.1)
    later = started(later_call)
    time.sleep(0.2)
    assert log == []  # the reader waits for the call in flight, and the later call waits behind the reader
    finish_call.set()
    for t in (c, r, later):
        t.join(5)
    assert log == ["call in flight ends", "reading starts", "later call"]


def test_two_readers_take_turns():
    turns, inside, most = LLMTurns(), [0], [0]
    lock = threading.Lock()

    def reader() -> None:
        with turns.reading():
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.05)
            with lock:
                inside[0] -= 1

    threads = [started(reader) for _ in range(4)]
    for t in threads:
        t.join(5)
    assert most[0] == 1


def seen_waiting(waiter: str) -> tuple[bool, bool, bool]:
    """A check reads and ``waiter`` ("call" or "reading") comes after it: whether the turns saw anyone waiting
    before it came, while it waited, and after everyone was done."""
    turns = LLMTurns()
    reading, release = threading.Event(), threading.Event()

    def reader() -> None:
        with turns.reading():
            reading.set()
            release.wait(5)

    def other() -> None:
        with turns.call() if waiter == "call" else turns.reading():
            pass

    r = started(reader)
    assert reading.wait(5)
    before = turns.others_waiting()  # the one reading is not waiting
    o = started(other)
    deadline, during = time.monotonic() + 2, False
    while not during and time.monotonic() < deadline:
        during = turns.others_waiting()
        time.sleep(0.01)
    release.set()
    r.join(5)
    o.join(5)
    return before, during, turns.others_waiting()


def test_a_reading_sees_a_call_or_another_reading_wait_for_its_turn():
    """A check's reading budget binds only while someone waits (agent.nodes.judge_sources.out_of_time)."""
    assert seen_waiting("call") == (False, True, False)
    assert seen_waiting("reading") == (False, True, False)


def test_a_registered_queue_with_users_in_it_counts_as_waiting():
    turns, queued = LLMTurns(), [0]
    turns.count_also(lambda: queued[0])
    assert not turns.others_waiting()
    queued[0] = 2  # users wait in the chat's queue for a check of their own
    assert turns.others_waiting()
