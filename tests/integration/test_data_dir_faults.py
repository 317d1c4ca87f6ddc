"""A data directory that is read-only or whose disk is full (tests/fs_faults.py: a read-only bind or a small tmpfs
in a mount namespace of the command's own): `claimtrace ask` and `claimtrace ui` end with one line that names the
cause and what to do, exit code 3, and the index is left as it was."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.fs_faults import read_only, small_disk
from tests.integration.test_cli import CLAIM, assert_one_line_error, cli_env, indexed_env  # noqa: F401
from tools.files import sha256_file

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "ui.terminal.cli"]


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, env=env, capture_output=True, timeout=300, cwd=REPO)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): sha256_file(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def test_ask_on_a_read_only_data_dir(indexed_env: dict[str, str]):  # noqa: F811
    data = Path(indexed_env["DATA_DIR"])
    before = digests(data / "index")
    proc = run(read_only(data, [*CLI, "ask", CLAIM]), indexed_env)
    assert_one_line_error(proc, 3, "cannot be opened: its folder is read-only or not writable: make DATA_DIR writable")
    assert "damaged" not in proc.stderr  # the index is sound: no rebuild is asked for
    assert digests(data / "index") == before


def test_ui_on_a_read_only_data_dir(indexed_env: dict[str, str]):  # noqa: F811
    data = Path(indexed_env["DATA_DIR"])
    env = {**indexed_env, "CLAIMTRACE_UI_PASSWORD": "fault-test-pw-7Hq2"}
    proc = run(read_only(data, [*CLI, "ui", "--port", "1"]), env)
    assert_one_line_error(proc, 3, f"the chat cannot keep its threads in {data}: its folder is read-only")


def test_ask_with_the_data_disk_full(indexed_env: dict[str, str], tmp_path: Path):  # noqa: F811
    data = Path(indexed_env["DATA_DIR"])
    seed = tmp_path / "seed"
    shutil.copytree(data / "index", seed / "index")
    full = tmp_path / "full"
    full.mkdir()
    env = {**indexed_env, "DATA_DIR": str(full), "ONNX_CACHE_DIR": str(data / "cache" / "onnx")}
    proc = run(small_disk(full, seed, 4, [*CLI, "ask", CLAIM], full=True), env)
    assert_one_line_error(proc, 3, f"the index at {full / 'index'} cannot be opened: the disk is full: free some space")
