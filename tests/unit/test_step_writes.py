"""The chat's data layer stores the writes of one message in the order Chainlit started them (ui.chat.forget): an
answer updated twice in quick succession keeps its last text, however long each write takes, and a message
removed as soon as it is sent stays removed."""

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


def test_a_message_removed_as_soon_as_it_is_sent_stays_removed(tmp_path: Path, monkeypatch: Any) -> None:
    """A waiting notice removed right after it was sent (ui.chat.queued): Chainlit starts the removal's write in a
    task of its own, as it does the creation's, so the removal must wait for the slow creation, and a late update
    of the removed message must not bring it back."""
    rows: dict[str, str] = {}

    async def write(self: Any, step_dict: Any) -> None:  # the SQL insert, slow
        await asyncio.sleep(0.2)
        rows[step_dict["id"]] = step_dict["output"]

    async def delete(self: Any, step_id: str) -> None:  # the SQL delete, fast
        rows.pop(step_id, None)

    monkeypatch.setattr(PasteDataLayer, "create_step", write)
    monkeypatch.setattr(PasteDataLayer, "delete_step", delete)
    layer = ChatDataLayer(conninfo=f"sqlite+aiosqlite:///{tmp_path / 'chat.db'}")

    async def sent_then_removed() -> None:
        created = asyncio.create_task(layer.create_step({"id": "notice", "output": "⏳ still finishing"}))
        removed = asyncio.create_task(layer.delete_step("notice"))
        kept = asyncio.create_task(layer.create_step({"id": "answer", "output": "the answer"}))
        await asyncio.gather(created, removed, kept)
        await layer.create_step({"id": "notice", "output": "⏳ still finishing (updated)"})

    asyncio.run(sent_then_removed())
    assert rows == {"answer": "the answer"} and layer._writes == {}
