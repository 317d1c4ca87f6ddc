"""The chat's data layer stores the writes of one message in the order Chainlit started them (ui.chat.forget): an
answer updated twice in quick succession keeps its last text, however long each write takes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ui.chat.forget import ChatDataLayer
from ui.chat.paste import PasteDataLayer

SLOW = {"the answer": 0.2, "the answer with its contexts": 0.0}  # the first write takes longer than the second


def test_a_later_update_of_a_message_is_stored_last(tmp_path: Path, monkeypatch: Any) -> None:
    stored: list[tuple[str, str]] = []

    async def write(self: Any, step_dict: Any) -> None:  # the SQL write, slow or fast
        await asyncio.sleep(SLOW.get(step_dict["output"], 0.0))
        stored.append((step_dict["id"], step_dict["output"]))

    monkeypatch.setattr(PasteDataLayer, "create_step", write)
    layer = ChatDataLayer(conninfo=f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}")

    async def updates() -> None:
        # as Chainlit's Message.send and Message.update do: a task per write, never awaited by the message
        tasks = [asyncio.create_task(layer.create_step({"id": "m1", "output": text})) for text in SLOW]
        tasks.append(asyncio.create_task(layer.create_step({"id": "m2", "output": "another message"})))
        await asyncio.gather(*tasks)

    asyncio.run(updates())
    assert [out for step, out in stored if step == "m1"] == list(SLOW)  # in the order started: the last text wins
    assert ("m2", "another message") in stored and layer._writes == {}  # another step waits for none; nothing kept


def test_a_step_written_for_a_deleted_thread_is_dropped(tmp_path: Path, monkeypatch: Any) -> None:
    """A late write of a deleted thread's message (ui.chat.forget) would put its rows back: it is not stored."""
    import ui.chat.forget as forget
    import ui.chat.runtime as runtime

    stored: list[str] = []

    async def write(self: Any, step_dict: Any) -> None:
        stored.append(step_dict["id"])

    async def nothing(*args: Any) -> None:
        return None

    async def chat_runtime() -> Any:
        return SimpleNamespace(graph=SimpleNamespace(checkpointer=None))

    monkeypatch.setattr(PasteDataLayer, "create_step", write)
    monkeypatch.setattr(PasteDataLayer, "delete_thread", nothing)
    monkeypatch.setattr(forget, "forget_thread", nothing)
    monkeypatch.setattr(forget, "delete_thread_files", lambda root, thread_id: 0)
    monkeypatch.setattr(runtime, "chat_runtime", chat_runtime)
    layer = ChatDataLayer(conninfo=f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}")

    async def writes() -> None:
        await layer.create_step({"id": "before", "threadId": "t1", "output": "the answer"})
        await layer.delete_thread("t1")
        await layer.create_step({"id": "after", "threadId": "t1", "output": "the answer with its contexts"})
        await layer.create_step({"id": "other", "threadId": "t2", "output": "another thread"})

    asyncio.run(writes())
    assert stored == ["before", "other"]
