"""A chat session over Chainlit's socket.io protocol, as the web client speaks it: log in over HTTP, connect with
the session cookie, send user messages, wait for the assistant's replies."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import socketio

# seconds the socket's handshake may take: python-socketio gives up after 1 s by default, which a busy 2-core
# machine exceeds when twenty sessions connect at once; the web client waits 20 s
CONNECT_WAIT_S = 30


async def login_cookie(url: str, user: str, password: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        r = await client.post("/login", data={"username": user, "password": password})
        r.raise_for_status()
        return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


class ChatSession:
    """One socket, one thread: `async with ChatSession(url, cookie) as chat: await chat.send(text, marker, timeout)`."""

    def __init__(self, url: str, cookie: str) -> None:
        self.url = url
        self.cookie = cookie
        self.thread_id = str(uuid.uuid4())
        self.errors: list[str] = []  # every error message seen
        self.outputs: list[str] = []  # every assistant message, in order
        self.step_names: list[str] = []  # the name of every other step (a check's steps), in order
        self._waiting: tuple[str, asyncio.Future[str]] | None = None
        self._tasks = {"started": 0, "open": 0}  # Chainlit's task_start / task_end: a turn's handler runs between
        self._sent_after = 0  # tasks started before the last message was sent
        self.sio = socketio.AsyncClient(reconnection=False)
        self.sio.on("new_message", self._on_new)
        self.sio.on("task_start", self._on_task_start)
        self.sio.on("task_end", self._on_task_end)

    async def _on_task_start(self, *_: object) -> None:
        self._tasks["started"] += 1
        self._tasks["open"] += 1

    async def _on_task_end(self, *_: object) -> None:
        self._tasks["open"] = max(0, self._tasks["open"] - 1)

    async def _on_new(self, step: dict[str, Any]) -> None:
        output = str(step.get("output") or "")
        if step.get("isError") or step.get("name") == "Error":
            self.errors.append(output)
        if step.get("type") == "assistant_message":
            self.outputs.append(output)
        elif step.get("type") != "user_message":
            self.step_names.append(str(step.get("name") or ""))
        if self._waiting and self._waiting[0] in output and not self._waiting[1].done():
            self._waiting[1].set_result(output)

    async def __aenter__(self) -> ChatSession:
        await self.sio.connect(
            self.url,
            socketio_path="/ws/socket.io",
            transports=["websocket"],
            headers={"Cookie": self.cookie},
            auth={"clientType": "webapp", "sessionId": str(uuid.uuid4()), "threadId": self.thread_id, "userEnv": "{}"},
            wait_timeout=CONNECT_WAIT_S,
        )
        await self.sio.emit("connection_successful")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.sio.disconnect()

    def user_message(self, text: str) -> dict[str, Any]:
        """A user message of this thread as the web client sends it."""
        return {
            "threadId": self.thread_id,
            "id": str(uuid.uuid4()),
            "name": "User",
            "type": "user_message",
            "output": text,
            "createdAt": datetime.now(UTC).isoformat(),
        }

    async def send(self, text: str, done_marker: str, timeout: float) -> str:
        """Send one user message; return the first assistant output containing `done_marker`."""
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiting = (done_marker, future)
        self._sent_after = self._tasks["started"]
        await self.sio.emit("client_message", {"message": self.user_message(text), "fileReferences": None})
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._waiting = None

    async def settled(self, timeout: float) -> None:
        """Wait until the handler of the last message sent has ended (a check's answer comes before its papers'
        generated contexts: the turn ends after them)."""
        deadline = time.perf_counter() + timeout
        while self._tasks["started"] <= self._sent_after or self._tasks["open"]:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"the turn did not end in {timeout:.0f} s")
            await asyncio.sleep(0.05)


async def ask(url: str, cookie: str, text: str, done_marker: str, timeout: float) -> dict[str, Any]:
    """One session, one message; returns seconds to the answer and every error event seen."""
    async with ChatSession(url, cookie) as chat:
        t0 = time.perf_counter()
        output = await chat.send(text, done_marker, timeout)
        seconds = time.perf_counter() - t0
        # the heartbeat wait the server's handshake set (socket.io's engine keeps it as ping_timeout)
        return {"seconds": seconds, "errors": chat.errors, "output": output, "heartbeat_s": chat.sio.eio.ping_timeout}


class ThreadSession(ChatSession):
    """A socket session on a given thread (a resume when the thread exists), keeping the restored thread and the
    actions the server attaches to messages."""

    def __init__(self, url: str, cookie: str, thread_id: str | None = None) -> None:
        super().__init__(url, cookie)
        self.thread_id = thread_id or self.thread_id
        self.session_id = str(uuid.uuid4())
        self.restored: dict[str, Any] = {}
        self.actions: list[dict[str, Any]] = []
        self.sio.on("resume_thread", self._on_resume)
        self.sio.on("action", self._on_action)

    async def _on_resume(self, thread: dict[str, Any]) -> None:
        self.restored = thread

    async def _on_action(self, action: dict[str, Any]) -> None:
        self.actions.append(action)

    async def __aenter__(self) -> ThreadSession:
        auth = {"clientType": "webapp", "sessionId": self.session_id, "threadId": self.thread_id, "userEnv": "{}"}
        await self.sio.connect(
            self.url,
            socketio_path="/ws/socket.io",
            transports=["websocket"],
            headers={"Cookie": self.cookie},
            auth=auth,
            wait_timeout=CONNECT_WAIT_S,
        )
        await self.sio.emit("connection_successful")
        return self

    async def wait_for(self, marker: str, timeout: float) -> str:
        """The first assistant message (sent or to come) whose text holds `marker`."""

        async def seen() -> str:
            while not any(marker in out for out in self.outputs):
                await asyncio.sleep(0.2)
            return next(out for out in self.outputs if marker in out)

        return await asyncio.wait_for(seen(), timeout)

    async def press(self, name: str) -> None:
        """Press the action button `name`, as the web client does (an HTTP call naming this session)."""
        action = next(a for a in self.actions if a["name"] == name)
        async with httpx.AsyncClient(base_url=self.url, headers={"Cookie": self.cookie}, timeout=30) as client:
            r = await client.post("/project/action", json={"sessionId": self.session_id, "action": action})
            r.raise_for_status()
