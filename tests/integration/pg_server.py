"""A throwaway PostgreSQL server on loopback for the tests: `initdb` into a temporary folder, `postgres` on a free
127.0.0.1 port (no Unix socket, trust auth, no fsync), removed afterwards. Uses the Debian packages
(/usr/lib/postgresql/N/bin, installed by `make test`) or `initdb` on PATH; PG_BIN overrides. PostgreSQL refuses to
run as root, so under root it runs as `nobody`."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.ports import free_port

START_TIMEOUT_S = 60.0
DB_USER = "claimtrace"


def find_bin() -> Path | None:
    """The folder holding initdb and postgres (newest Debian version first), or None."""
    candidates = [os.environ.get("PG_BIN", "")]
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    on_path = shutil.which("initdb")
    candidates += [str(Path(on_path).parent)] if on_path else []
    for c in candidates:
        if c and (Path(c) / "initdb").is_file() and (Path(c) / "postgres").is_file():
            return Path(c)
    return None



class PostgresServer:
    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="claimtrace-pg-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self.as_user: dict[str, Any] = {}
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self.as_user = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)

    @property
    def url(self) -> str:
        return f"postgresql://{DB_USER}@127.0.0.1:{self.port}/postgres"

    @property
    def log(self) -> Path:
        return self.root / "postgres.log"

    def _run(self, args: list[str], **kw: Any) -> Any:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "TZ": "UTC"}
        return subprocess.Popen(args, cwd=self.root, env=env, **self.as_user, **kw)

    def start(self) -> PostgresServer:
        data = self.root / "data"
        with self.log.open("wb") as out:
            init = self._run(
                [str(self.bin_dir / "initdb"), "-D", str(data), "-U", DB_USER, "--auth=trust", "--encoding=UTF8",
                 "--locale=C", "--no-sync"],
                stdout=out, stderr=subprocess.STDOUT,
            )
            if init.wait(timeout=120) != 0:
                raise RuntimeError(f"initdb failed: {self.log.read_text()[-2000:]}")
            self.proc = self._run(
                [str(self.bin_dir / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(self.port),
                 "-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "shared_buffers=16MB",
                 "-c", "max_connections=20"],
                stdout=out, stderr=subprocess.STDOUT,
            )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        import psycopg

        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with psycopg.connect(self.url, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    tail = self.log.read_text()[-2000:]
                    self.stop()
                    raise RuntimeError(f"postgres did not start: {tail}") from None
                time.sleep(0.3)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # "fast" shutdown: ends sessions, no waiting for clients
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)
