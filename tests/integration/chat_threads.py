"""A chat thread written and read through the chat's configured data layer (ui.chat.forget.chat_data_layer), as
one chat instance and another do; imported by the tests and by the processes they start as other instances (so it
imports nothing of the test configuration)."""

from __future__ import annotations

from typing import Any

CLAIM = "Coffee prevents liver fibrosis."


async def write_thread(thread_id: str, claim: str) -> str:
    """A chat thread as the chat writes it (the configured data layer: user, thread, the user's message and the
    reply); returns the user's id."""
    from chainlit.context import init_http_context
    from chainlit.user import User

    from ui.chat.forget import chat_data_layer

    init_http_context()  # the layer's step writes look at the session: an HTTP one writes at once
    layer = chat_data_layer()
    try:
        user = await layer.create_user(User(identifier="claimtrace", metadata={"role": "owner"}))
        assert user is not None
        await layer.update_thread(thread_id, name=claim, user_id=user.id, metadata={"claimtrace": "kept"})
        for n, (kind, text) in enumerate([("user_message", claim), ("assistant_message", "No link was found [1].")]):
            await layer.create_step({
                "id": f"{thread_id}-{n}", "threadId": thread_id, "name": kind, "type": kind, "output": text,
                "streaming": False, "createdAt": f"2026-01-01T00:00:0{n}Z", "metadata": {"n": n},
            })
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
