"""The chat's login and origin rules on a real `claimtrace ui` server: a first start without a configured password
shows a generated one on the terminal only; a page of another origin is refused over HTTP and the websocket; failed
sign-ins are throttled with a message on the login page; no secret reaches the server's log or any file it writes."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import select
import shutil
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import socketio

from tests.e2e.chat_client import ChatSession, login_cookie
from tests.e2e.conftest import CLAIM, PASSWORD, SECRETS, USER
from tests.e2e.server import REPO, START_TIMEOUT_S, ChatServer, free_port
from ui.chat.guard import TOO_MANY_TEXT

FOREIGN = "http://127.0.0.1:9"  # a page on another port of the same host: same site, another origin
TIMEOUT_S = 120.0


class Terminal:
    """A pseudo-terminal for the server's stderr (where `claimtrace ui` shows a generated password), read in the
    background so the server never blocks on it."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        self.text = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the server exited and the terminal closed
                return
            if not chunk:
                return
            self.text += chunk.decode(errors="replace")


def start_ui(env: dict[str, str], log: Path, terminal: Terminal) -> tuple[subprocess.Popen[bytes], str]:
    """`claimtrace ui` with stdout to `log` and stderr on the terminal; returns it once it is ready, and its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ui.terminal.cli", "ui", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=terminal.slave,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the chat server exited: {terminal.text[-2000:]} {log.read_text()[-2000:]}"
        try:
            with urllib.request.urlopen(url + "/", timeout=5) as r:
                if r.status == 200 and b"claimtrace is ready" in log.read_bytes():
                    return proc, url
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise TimeoutError(f"the chat server did not start: {log.read_text()[-2000:]}")


@pytest.fixture
def first_start(chat_env: dict[str, str], tmp_path: Path) -> Iterator[tuple[str, Path, Terminal]]:
    """A server on a data dir of its own (the session server's index) with no password configured."""
    shutil.copytree(Path(chat_env["DATA_DIR"]) / "index", tmp_path / "index")
    env = {k: v for k, v in chat_env.items() if k != "CLAIMTRACE_UI_PASSWORD"}
    env.update({"DATA_DIR": str(tmp_path), "CLAIMTRACE_UI_USER": "claimtrace"})
    terminal = Terminal()
    proc, url = start_ui(env, tmp_path / "server.log", terminal)
    yield url, tmp_path, terminal
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=20)
    os.close(terminal.slave)


def files_holding(root: Path, secret: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_a_first_start_shows_a_generated_password_on_the_terminal_only(first_start: tuple[str, Path, Terminal]):
    url, data, terminal = first_start
    # the server is ready; the terminal's reader thread may not have read the line yet: it is waited for
    deadline = time.monotonic() + 30
    while not (found := re.search(r"Log in as 'claimtrace' with the password (\S+)\s", terminal.text)):
        assert time.monotonic() < deadline, terminal.text
        time.sleep(0.1)
    password = found.group(1)
    with httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/login", data={"username": "claimtrace", "password": "claimtrace"}).status_code == 401
        assert client.post("/login", data={"username": "claimtrace", "password": password}).status_code == 200
    kept = data / "chainlit" / "password.scrypt"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert files_holding(data, password) == []  # not in the log, the hash file or any database


def test_a_page_of_another_origin_is_refused(server: ChatServer):
    form = {"username": USER, "password": PASSWORD}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        refused = client.post("/login", data=form, headers={"Origin": FOREIGN})
        assert refused.status_code == 403 and "access_token" not in refused.cookies
        preflight = client.options(
            "/project/threads", headers={"Origin": FOREIGN, "Access-Control-Request-Method": "POST"}
        )
        assert preflight.status_code == 403 and "access-control-allow-origin" not in preflight.headers
        assert client.post("/login", data=form, headers={"Origin": server.url}).status_code == 200
    cookie = asyncio.run(login_cookie(server.url, USER, PASSWORD))

    async def connect(origin: str) -> bool:
        sio = socketio.AsyncClient(reconnection=False)
        try:
            await sio.connect(
                server.url,
                socketio_path="/ws/socket.io",
                transports=["websocket"],
                headers={"Cookie": cookie, "Origin": origin},
                auth={"clientType": "webapp", "sessionId": "s-" + origin[-4:], "userEnv": "{}"},
                wait_timeout=30,
            )
            return True
        except socketio.exceptions.ConnectionError:
            return False
        finally:
            await sio.disconnect()  # also closes the client's HTTP session after a refused connect

    assert asyncio.run(connect(FOREIGN)) is False
    assert asyncio.run(connect(server.url)) is True


def test_failed_sign_ins_are_throttled_with_a_message(server: ChatServer, browser: Any):
    intruder = {"username": "intruder", "password": "guess"}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        codes = [client.post("/login", data=intruder).status_code for _ in range(5)]
        assert codes == [401] * 5
        refused = client.post("/login", data=intruder)
        assert refused.status_code == 429 and refused.json()["detail"] == TOO_MANY_TEXT
        assert int(refused.headers["Retry-After"]) > 0
        assert client.post("/login", data={"username": USER, "password": PASSWORD}).status_code == 200
    page = browser.new_page()
    page.goto(server.url + "/login")
    page.fill("#email", "intruder")
    page.fill("#password", "guess")
    page.click("button[type=submit]")
    page.get_by_text(TOO_MANY_TEXT).first.wait_for(timeout=30_000)


def test_no_secret_reaches_the_server_log_or_its_files(server: ChatServer, chat_env: dict[str, str]):
    async def session() -> str:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            assert client.post("/login", data={"username": USER, "password": "wrong"}).status_code == 401
        cookie = await login_cookie(server.url, USER, PASSWORD)
        async with ChatSession(server.url, cookie) as chat:
            return await chat.send(CLAIM, "Verdict:", TIMEOUT_S * 3)

    assert "Sources" in asyncio.run(session())
    data = Path(chat_env["DATA_DIR"])
    assert server.log.stat().st_size > 0 and server.log.parent == data
    for name, value in SECRETS.items():
        assert files_holding(data, value) == [], name
