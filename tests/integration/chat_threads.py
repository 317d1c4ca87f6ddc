"""A chat thread written and read through the chat's configured data layer (ui.chat.forget.chat_data_layer), as
one chat instance and another do; imported by the tests and by the processes they start as other instances (so it
imports nothing of the test configuration)."""

from __future__ import annotations

from typing import Any

CLAIM = "Coffee prevents liver fibrosis."


async def write_thread(thread_id: str, claim: str) -> str:
    """A chat thread as the chat writes it (the configured data layer: user, thread, and Chainlit's own dicts of the
    user's message and the reply, every field they carry); returns the user's id."""
    import chainlit as cl
    from chainlit.context import init_http_context
    from chainlit.user import User

    from ui.chat.forget import chat_data_layer

    init_http_context()  # the layer's step writes look at the session: an HTTP one writes at once
    layer = chat_data_layer()
    try:
        user = await layer.create_user(User(identifier="claimtrace", metadata={"role": "owner"}))
        assert user is not None
        await layer.update_thread(thread_id, name=claim, user_id=user.id, metadata={"claimtrace": "kept"})
        asked = cl.Message(content=claim, type="user_message", id=f"{thread_id}-0", metadata={"n": 0})
        answer = cl.Message(content="No link was found [1].", id=f"{thread_id}-1", metadata={"n": 1})
        for n, message in enumerate([asked, answer]):
            message.thread_id, message.created_at = thread_id, f"2026-01-01T00:00:0{n}Z"
            await layer.create_step(message.to_dict())
        return str(user.id)
    finally:
        await layer.close()


async def read_threads() -> tuple[list[str], dict[str, Any] | None]:
    """What another instance's data layer lists for the user, and the first thread whole."""
    from chainlit.types import Pagination, ThreadFilter

    from ui.chat.forget import chat_data_layer

    layer = chat_data_layer()
    try:
        user = await layer.get_user("claimtrace")
        assert user is not None
        page = await layer.list_threads(Pagination(first=20), ThreadFilter(userId=user.id))
        ids = [t["id"] for t in page.data]
        return ids, dict(await layer.get_thread(ids[0]) or {}) if ids else None
    finally:
        await layer.close()
