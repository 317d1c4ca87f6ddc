"""ui/chat/guard.py: the sign-in throttle on a fake clock, the served origins, and the middleware in front of a small
Starlette app standing in for Chainlit (a login route that accepts one password, a page and a websocket)."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from ui.chat.guard import TOO_MANY_TEXT, Guard, LoginThrottle, OriginPolicy, is_loopback, served_origins

SERVED = "http://127.0.0.1:8000"
FOREIGN = "http://127.0.0.1:9999"  # another port of the same host: same site, other origin


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_throttle_locks_a_pair_after_the_limit_and_only_that_pair():
    clock = Clock()
    t = LoginThrottle(limit=3, window=60, lockout=120, clock=clock)
    key, other = ("10.0.0.1", "ana"), ("10.0.0.2", "ana")
    for _ in range(2):
        t.failed(key)
        assert t.retry_after(key) == 0
    t.failed(key)
    assert t.retry_after(key) == 120
    assert t.retry_after(other) == 0 and t.retry_after(("10.0.0.1", "bob")) == 0
    clock.now += 119
    assert t.retry_after(key) == pytest.approx(1)
    clock.now += 1
    assert t.retry_after(key) == 0
    t.failed(key)  # the count starts again after a lockout
    assert t.retry_after(key) == 0


def test_throttle_counts_only_failures_within_the_window_and_a_success_clears():
    clock = Clock()
    t = LoginThrottle(limit=3, window=60, lockout=120, clock=clock)
    key = ("10.0.0.1", "ana")
    t.failed(key)
    t.failed(key)
    clock.now += 61  # both fall out of the window
    t.failed(key)
    t.failed(key)
    assert t.retry_after(key) == 0
    t.succeeded(key)
    t.failed(key)
    t.failed(key)
    assert t.retry_after(key) == 0
    t.failed(key)
    assert t.retry_after(key) > 0


def test_throttle_forgets_the_stalest_pairs_beyond_its_bound():
    t = LoginThrottle(limit=2, window=60, lockout=60, clock=Clock(), max_keys=3)
    for i in range(10):
        t.failed(("10.0.0.1", f"user{i}"))
    t.failed(("10.0.0.1", "user0"))  # its first failure was forgotten: one failure, below the limit
    assert t.retry_after(("10.0.0.1", "user0")) == 0
    t.failed(("10.0.0.1", "user9"))  # still remembered: its second failure locks it
    assert t.retry_after(("10.0.0.1", "user9")) > 0


def test_served_origins():
    loopback = ["http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"]
    assert served_origins("127.0.0.1", 8000) == loopback
    assert served_origins("localhost", 8000) == loopback
    assert served_origins("0.0.0.0", 8000, ["https://claims.example.org/"]) == [*loopback, "https://claims.example.org"]
    assert served_origins("192.168.1.5", 8080) == ["http://192.168.1.5:8080"]
    assert served_origins("fd00::5", 8080) == ["http://[fd00::5]:8080"]
    assert all(is_loopback(h) for h in ("127.0.0.2", "::1", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "example.org", "10.1.1.1"))


def test_origin_policy():
    fixed = OriginPolicy(served_origins("127.0.0.1", 8000))
    assert fixed.allows(None, "127.0.0.1:8000") and fixed.allows("http://LOCALHOST:8000", "localhost:8000")
    assert not fixed.allows(FOREIGN, "127.0.0.1:8000")
    assert not fixed.allows("null", "127.0.0.1:8000")
    assert not fixed.allows("http://evil.example:8000", "evil.example:8000")  # a rebound name: not served
    every = OriginPolicy(served_origins("0.0.0.0", 8000), any_host=True)
    assert every.allows("http://lab-pc:8000", "lab-pc:8000")
    assert not every.allows("http://evil.example", "lab-pc:8000")


async def _login(request: Request) -> JSONResponse:
    form = await request.form()
    ok = form.get("password") == "right"
    return JSONResponse({"ok": ok, "user": form.get("username")}, status_code=200 if ok else 401)


async def _socket(ws: WebSocket) -> None:
    await ws.accept()
    await ws.send_text("hello")
    await ws.close()


@pytest.fixture
def client() -> TestClient:
    inner = Starlette(
        routes=[
            Route("/login", _login, methods=["POST"]),
            Route("/", lambda r: PlainTextResponse("page")),
            WebSocketRoute("/ws", _socket),
        ]
    )
    throttle = LoginThrottle(limit=3, window=60, lockout=300)
    app = Guard(inner, OriginPolicy(served_origins("127.0.0.1", 8000)), throttle)
    return TestClient(app, base_url=SERVED)


def test_a_foreign_origin_is_refused_over_http_and_websocket(client: TestClient):
    assert client.get("/").text == "page"
    assert client.get("/", headers={"Origin": SERVED}).status_code == 200
    refused = client.post("/login", data={"username": "ana", "password": "right"}, headers={"Origin": FOREIGN})
    assert refused.status_code == 403 and "ok" not in refused.text
    with client.websocket_connect("/ws", headers={"Origin": SERVED}) as ws:
        assert ws.receive_text() == "hello"
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws", headers={"Origin": FOREIGN}):
        pass
    assert closed.value.code == 1008


def test_sign_ins_are_refused_after_too_many_failures(client: TestClient):
    for _ in range(3):
        assert client.post("/login", data={"username": "ana", "password": "wrong"}).status_code == 401
    refused = client.post("/login", data={"username": "ana", "password": "right"})
    assert refused.status_code == 429 and refused.json()["detail"] == TOO_MANY_TEXT
    assert 0 < int(refused.headers["Retry-After"]) <= 300
    other = client.post("/login", data={"username": "bob", "password": "right"})
    assert other.status_code == 200 and other.json()["user"] == "bob"  # the form reached the app intact


def test_a_success_resets_the_count(client: TestClient):
    for _ in range(2):
        client.post("/login", data={"username": "ana", "password": "wrong"})
    assert client.post("/login", data={"username": "ana", "password": "right"}).status_code == 200
    for _ in range(2):
        assert client.post("/login", data={"username": "ana", "password": "wrong"}).status_code == 401
    assert client.post("/login", data={"username": "ana", "password": "right"}).status_code == 200


def test_an_oversized_login_form_is_refused(client: TestClient):
    response = client.post("/login", data={"username": "ana", "password": "x" * 20_000})
    assert response.status_code == 413
