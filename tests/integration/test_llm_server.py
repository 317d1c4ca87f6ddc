"""`claimtrace llm-server`: the embedded model behind llama.cpp's OpenAI-compatible server on a fixed port, as several
chat instances share it. Started as a real process with the GGUF `make setup` assembled: it says where it serves,
answers two chat completions sent at once (--parallel 2), and stops cleanly on SIGTERM; a bad --parallel is one line
and the input exit code."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from agent.errors import EXIT_INPUT
from tests.ports import free_port
from tests.settings_env import BUILT_MODELS

REPO = Path(__file__).resolve().parents[2]


def cli(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "ui.terminal.cli", *args], cwd=REPO, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_bad_parallel_is_one_line():
    proc = cli(["llm-server", "--parallel", "0"], dict(os.environ))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INPUT and err.strip().splitlines() == ["claimtrace: --parallel must be 1 or more"]


@pytest.mark.slow
def test_two_requests_at_once_and_a_clean_stop():
    port = free_port()
    env = {**os.environ, "MODELS_DIR": str(BUILT_MODELS)}
    proc = cli(["llm-server", "--port", str(port), "--parallel", "2"], env)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:  # it loads the model, then says where it serves
            assert proc.poll() is None, proc.communicate()[1]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(1)
        body = {"messages": [{"role": "user", "content": "Say yes."}], "max_tokens": 4}

        def ask(_: int) -> dict:
            return httpx.post(f"{url}/chat/completions", json=body, timeout=300).json()

        with ThreadPoolExecutor(2) as pool:
            replies = list(pool.map(ask, range(2)))
        assert all(r["choices"][0]["message"]["content"] for r in replies)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert f"at {url} (2 request(s) at once)" in err
