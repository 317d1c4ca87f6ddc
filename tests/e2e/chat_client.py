"""A chat session over Chainlit's socket.io protocol, as the web client speaks it: log in over HTTP, connect with
the session cookie, send a user message, wait for the assistant's answer."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import socketio


async def login_cookie(url: str, user: str, password: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        r = await client.post("/login", data={"username": user, "password": password})
        r.raise_for_status()
        return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


async def ask(url: str, cookie: str, text: str, done_marker: str, timeout: float) -> dict[str, Any]:
    """One session, one message; returns seconds to the answer and every error event seen."""
    sio = socketio.AsyncClient(reconnection=False)
    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    errors: list[str] = []

    @sio.on("new_message")
    async def on_new(step: dict[str, Any]) -> None:
        output = str(step.get("output") or "")
        if step.get("isError") or step.get("name") == "Error":
            errors.append(output)
        if done_marker in output and not answer.done():
            answer.set_result(output)

    thread_id = str(uuid.uuid4())
    await sio.connect(
        url,
        socketio_path="/ws/socket.io",
        transports=["websocket"],
        headers={"Cookie": cookie},
        auth={"clientType": "webapp", "sessionId": str(uuid.uuid4()), "threadId": thread_id, "userEnv": "{}"},
    )
    try:
        await sio.emit("connection_successful")
        t0 = time.perf_counter()
        await sio.emit(
            "client_message",
            {
                "message": {
                    "threadId": thread_id,
                    "id": str(uuid.uuid4()),
                    "name": "User",
                    "type": "user_message",
                    "output": text,
                    "createdAt": datetime.now(UTC).isoformat(),
                },
                "fileReferences": None,
            },
        )
        output = await asyncio.wait_for(answer, timeout)
        return {"seconds": time.perf_counter() - t0, "errors": errors, "output": output}
    finally:
        await sio.disconnect()
