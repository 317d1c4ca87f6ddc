"""One turn at a time on each chat thread (ui.chat.queued.thread_turn): a question sent while the thread's check is
still finishing waits for it; other threads' turns do not."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from ui.chat import queued
from ui.chat.queued import thread_turn


async def turn(thread: str, name: str, log: list[str], seconds: float) -> None:
    async with thread_turn(thread):
        log.append(f"{name} starts")
        await asyncio.sleep(seconds)
        log.append(f"{name} ends")


def test_turns_on_one_thread_run_one_after_another_and_other_threads_run_beside_them() -> None:
    log: list[str] = []

    async def main() -> None:
        check = asyncio.create_task(turn("t1", "check", log, 0.05))
        await asyncio.sleep(0)  # the check holds its thread's turn
        await asyncio.gather(turn("t1", "sources", log, 0.0), turn("t2", "other", log, 0.0), check)

    asyncio.run(main())
    assert log.index("sources starts") > log.index("check ends")  # waited for the check to finish
    assert log.index("other starts") < log.index("check ends")  # another thread did not wait


def test_a_thread_keeps_no_lock_once_no_turn_holds_or_awaits_it() -> None:
    asyncio.run(turn("gone", "only", [], 0.0))
    gc.collect()
    assert "gone" not in queued._THREAD_TURNS


def test_a_message_waiting_for_the_threads_last_check_says_so_until_its_turn_starts(monkeypatch: Any) -> None:
    """ui.chat.queued.own_turn: a message sent while the thread's check still finishes shows a notice that goes when
    its turn starts; with no earlier turn running, no notice."""
    import chainlit as cl
    from chainlit.context import init_http_context

    log: list[str] = []

    async def send(message: Any) -> None:
        log.append(f"notice: {message.content}")

    async def remove(message: Any) -> None:
        log.append("notice removed")

    monkeypatch.setattr(cl.Message, "send", send)
    monkeypatch.setattr(cl.Message, "remove", remove)

    async def message(thread: str, name: str) -> None:
        async with queued.own_turn(thread):
            log.append(f"{name} starts")

    async def main() -> None:
        init_http_context()
        check = asyncio.create_task(turn("t1", "check", log, 0.05))
        await asyncio.sleep(0)  # the check holds its thread's turn
        await asyncio.gather(message("t1", "sources"), check)
        await message("t1", "later")

    asyncio.run(main())
    assert log == [
        "check starts",
        f"notice: {queued.EARLIER_TURN}",
        "check ends",
        "notice removed",
        "sources starts",
        "later starts",  # the thread was free: no notice
    ]
