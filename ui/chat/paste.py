"""How much text one chat message may carry, and how much of it is kept.

Chainlit's socket.io server closes the connection on a message over 1 MB (engine.io's default), so a pasted file
would vanish without a word; with MAX_MESSAGE_BYTES it arrives and agent.service.validate_claim refuses it by its
length at once. A message beyond that still closes the connection (the client reconnects and nothing is stored).
Chainlit stores every user message in the thread list, which each page load reads whole, so a message far beyond
any limit is kept as its start and its length."""

from __future__ import annotations

from typing import Any

from agent.service import RAW_FACTOR
from agent.settings.app import get_settings
from ui.chat.elements import ElementsUnstoredDataLayer

MAX_MESSAGE_BYTES = 8 * 1024 * 1024


def accept_large_pastes() -> None:
    """Raise the socket's message limit to MAX_MESSAGE_BYTES (read for each incoming message)."""
    from chainlit.server import sio

    sio.eio.max_http_buffer_size = MAX_MESSAGE_BYTES


def kept(text: str) -> str:
    """The text as stored: whole, or, far beyond what a claim or a passage may be (ui.chat.passage checks a
    passage's first MAX_PASSAGE_CHARS), its first MAX_PASSAGE_CHARS characters and its length."""
    answer = get_settings().answer
    if len(text) <= RAW_FACTOR * max(answer.max_claim_chars, answer.max_passage_chars):
        return text
    first = answer.max_passage_chars
    return f"{text[:first]}… ({len(text)} characters; only the first {first} kept)"


class PasteDataLayer(ElementsUnstoredDataLayer):
    """Chainlit's SQLAlchemy data layer, storing over-long user messages and thread names as `kept` says (and no
    element: ui.chat.elements)."""

    async def create_step(self, step_dict: Any) -> None:
        if isinstance(step_dict.get("output"), str):
            step_dict = {**step_dict, "output": kept(step_dict["output"])}
        await super().create_step(step_dict)

    async def update_thread(
        self,
        thread_id: str,
        name: str | None = None,
        user_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        tags: list[str] | None = None,
    ) -> None:
        name = None if name is None else kept(name)
        await super().update_thread(thread_id, name=name, user_id=user_id, metadata=metadata, tags=tags)
