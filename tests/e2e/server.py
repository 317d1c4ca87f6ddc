"""The chat server as a user starts it (`claimtrace ui`), on a free loopback port, killable with -9."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 300.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ChatServer:
    def __init__(self, env: dict[str, str], log: Path, prefix: list[str] | None = None) -> None:
        self.env = env
        self.log = log
        self.prefix = prefix or []  # a command that runs the server (tests/fs_faults.py: a small disk of its own)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ChatServer:
        since = self.log.stat().st_size if self.log.exists() else 0  # "ready" must come from this start's output
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [*self.prefix, sys.executable, "-m", "ui.terminal.cli", "ui", "--port", str(self.port)],
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log.read_text()[-2000:]
                raise RuntimeError(f"the chat server exited with {self.proc.returncode}: {tail}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5) as r:
                    if r.status == 200 and b"claimtrace is ready" in self.log.read_bytes()[since:]:
                        return self
            except OSError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"the chat server did not start in {START_TIMEOUT_S} s: {self.log.read_text()[-2000:]}")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill9()
