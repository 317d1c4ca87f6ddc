"""`claimtrace ui` refuses to start where its login would be weak: a non-loopback address without a configured
password, or a first start with no terminal to show the generated password on. One line, exit code 2."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.test_cli import assert_one_line_error, run


def _env(data: Path, **extra: str) -> dict[str, str]:
    # the suite's environment holds no setting of the runner's (tests/conftest.py)
    return {**os.environ, "DATA_DIR": str(data), "LLM_PROVIDER": "scripted", **extra}


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "my-laptop.lan"])
def test_a_non_loopback_host_needs_a_configured_password(tmp_path: Path, host: str):
    proc = run(["ui", "--host", host], _env(tmp_path))
    assert_one_line_error(proc, 2, f"refusing to listen on {host} without a configured password")
    assert "CLAIMTRACE_UI_PASSWORD" in proc.stderr
    # with a password the address is accepted: the start stops at the next rule, the missing index
    configured = run(["ui", "--host", host], _env(tmp_path, CLAIMTRACE_UI_PASSWORD="a-long-password"))
    assert_one_line_error(configured, 3, "run `claimtrace index` first")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_a_loopback_host_needs_no_configured_password(tmp_path: Path, host: str):
    assert_one_line_error(run(["ui", "--host", host], _env(tmp_path)), 3, "run `claimtrace index` first")


def test_a_first_start_without_a_terminal_is_refused(tmp_path: Path, tiny_index_dir: Path):
    (tmp_path / "index").symlink_to(tiny_index_dir)
    proc = run(["ui", "--port", "9"], _env(tmp_path))  # stderr is a pipe here, not a terminal
    assert_one_line_error(proc, 2, "no terminal to show a generated one on")
    assert not (tmp_path / "chainlit" / "password.scrypt").exists()
