"""One turn at a time on each chat thread (ui.chat.queued.thread_turn): a question sent while the thread's check is
still finishing waits for it; other threads' turns do not."""

from __future__ import annotations

import asyncio
import gc
from types import SimpleNamespace
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


def test_a_thread_is_deleted_once_its_running_check_has_written_its_last_rows(tmp_path: Any, monkeypatch: Any) -> None:
    """The chat's delete button (ui.chat.forget.ChatDataLayer.delete_thread) waits for the thread's turn: a check still
    writing its papers' contexts would otherwise put rows back after the deletion."""
    import ui.chat.forget as forget
    import ui.chat.runtime as runtime
    from ui.chat.paste import PasteDataLayer

    log: list[str] = []

    async def delete_rows(self: Any, thread_id: str) -> None:
        log.append(f"delete {thread_id}")

    async def forget_thread(checkpointer: Any, settings: Any, thread_id: str) -> None:
        log.append(f"forget {thread_id}")

    async def chat_runtime() -> Any:
        return SimpleNamespace(graph=SimpleNamespace(checkpointer=None))

    monkeypatch.setattr(PasteDataLayer, "delete_thread", delete_rows)
    monkeypatch.setattr(forget, "forget_thread", forget_thread)
    monkeypatch.setattr(forget, "delete_thread_files", lambda root, thread_id: 0)
    monkeypatch.setattr(runtime, "chat_runtime", chat_runtime)
    layer = forget.ChatDataLayer(conninfo=f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}")

    async def main() -> None:
        check = asyncio.create_task(turn("t1", "check", log, 0.05))
        await asyncio.sleep(0)  # the check holds its thread's turn
        await asyncio.gather(layer.delete_thread("t1"), layer.delete_thread("t2"), check)

    asyncio.run(main())
    assert log.index("delete t1") > log.index("check ends")  # the deletion waited for the check's last writes
    assert log.index("forget t1") > log.index("check ends")
    assert log.index("delete t2") < log.index("check ends")  # another thread's deletion did not wait


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
