"""What the chat server refuses before Chainlit sees a request: calls made by a page of another origin, over HTTP and
the socket.io websocket alike (Chainlit's socket.io server checks no origin, and its session cookie is SameSite=Lax,
which a page on another port of the same host still gets), and sign-ins after too many failed ones."""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("claimtrace.ui")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
ALL_INTERFACES = ("0.0.0.0", "::")
TOO_MANY_TEXT = "Too many failed sign-ins: wait a few minutes before trying again."
MAX_LOGIN_BODY = 16 * 1024  # a user name and a password in a form


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def served_origins(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The origins a browser shows the chat under when it listens on `host`: every loopback name for a loopback or
    all-interfaces address, else the address itself; plus the configured `extra` ones (a proxy's name)."""
    if host in ALL_INTERFACES or is_loopback(host):
        names: Iterable[str] = LOOPBACK_NAMES
    else:
        names = (f"[{host}]" if ":" in host else host,)
    return [f"http://{name}:{port}" for name in names] + [o.rstrip("/") for o in extra]


class OriginPolicy:
    """Which Origin headers may call the server: the served ones, and, when it listens on all interfaces (where any
    of the machine's names serves the page), the one naming the host the request was sent to."""

    def __init__(self, origins: Iterable[str], any_host: bool = False) -> None:
        self.origins = {o.lower() for o in origins}
        self.any_host = any_host

    def allows(self, origin: str | None, host: str | None) -> bool:
        if origin is None:  # not sent by a page's script: a link, a typed address, a command-line client
            return True
        origin = origin.lower()
        if origin in self.origins:
            return True
        return self.any_host and bool(host) and origin in (f"http://{host}".lower(), f"https://{host}".lower())


Key = tuple[str, str]


class LoginThrottle:
    """Failed sign-ins per (client address, user name): after `limit` failures within `window` seconds that pair is
    refused for `lockout` seconds, without its password being checked; a success clears its count. At most
    `max_keys` pairs are remembered (the stalest are forgotten first), so random user names cannot fill memory."""

    def __init__(
        self,
        limit: int = 5,
        window: float = 300.0,
        lockout: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
    ) -> None:
        self.limit, self.window, self.lockout, self.max_keys = limit, window, lockout, max_keys
        self.clock = clock
        self._failures: dict[Key, deque[float]] = {}
        self._locked: dict[Key, float] = {}

    def retry_after(self, key: Key) -> float:
        """Seconds until `key` may try again; 0 when it may now."""
        until = self._locked.get(key)
        if until is None:
            return 0.0
        left = until - self.clock()
        if left > 0:
            return left
        del self._locked[key]
        return 0.0

    def failed(self, key: Key) -> None:
        now = self.clock()
        times = self._failures.pop(key, deque())
        times.append(now)
        while times[0] <= now - self.window:
            times.popleft()
        if len(times) >= self.limit:
            self._locked[key] = now + self.lockout
            log.warning("sign-ins from %s refused for %.0f s after %d failures", key[0], self.lockout, len(times))
        else:
            self._failures[key] = times  # re-inserted last: the dict runs from stalest to freshest
        self._forget_stalest()

    def succeeded(self, key: Key) -> None:
        self._failures.pop(key, None)
        self._locked.pop(key, None)

    def _forget_stalest(self) -> None:
        for table in (self._failures, self._locked):
            while len(table) > self.max_keys:
                del table[next(iter(table))]


class Guard:
    """ASGI middleware in front of Chainlit: refuses requests from foreign origins (403; a websocket is closed before
    it opens) and throttles POSTs to the login path with a LoginThrottle (429 with Retry-After)."""

    def __init__(self, app: ASGIApp, policy: OriginPolicy, throttle: LoginThrottle, login_path: str = "/login"):
        self.app, self.policy, self.throttle, self.login_path = app, policy, throttle, login_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if not self.policy.allows(headers.get("origin"), headers.get("host")):
            log.warning("refused a %s request from origin %.200r", scope["type"], headers.get("origin"))
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await PlainTextResponse("cross-origin request refused", status_code=403)(scope, receive, send)
            return
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == self.login_path:
            await self._login(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _login(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _read_body(receive)
        if body is None:
            await PlainTextResponse("login form too large", status_code=413)(scope, receive, send)
            return
        form = await Request(scope, _replay(body, receive)).form()
        key = ((scope.get("client") or ("?", 0))[0], str(form.get("username") or ""))
        await form.close()
        wait = self.throttle.retry_after(key)
        if wait:
            headers = {"Retry-After": str(math.ceil(wait))}
            await JSONResponse({"detail": TOO_MANY_TEXT}, status_code=429, headers=headers)(scope, receive, send)
            return
        status: list[int] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        await self.app(scope, _replay(body, receive), watch)
        if status == [401]:
            self.throttle.failed(key)
        elif status and status[0] < 400:
            self.throttle.succeeded(key)


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when it is larger than MAX_LOGIN_BODY."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_LOGIN_BODY:
            return None
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Callable[[], Any]:
    """A receive callable that gives `body` once, then what the client sends next (its disconnect)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
