"""A read-only or a full data directory for one process, made by the kernel and not by mocks: the process runs in a
mount namespace of its own (`unshare`; as root directly, otherwise in a user namespace mapped to root), where the
directory is bound read-only, or replaced by a small tmpfs holding a copy of it. Root ignores file modes, so a
chmod would prove nothing when the tests run as root; a read-only mount holds for root too. Nothing outside the
process sees these mounts, and they go away with it."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest


def private_mounts() -> list[str]:
    """The command prefix for a process with a mount namespace of its own; skips the test, saying why, where the
    kernel allows none."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("util-linux `unshare` is missing: the read-only and full data directory tests need it")
    users = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    prefix = [unshare, *users, "--mount", "--propagation", "private"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace for this user ({probe.stderr.strip()}): cannot make a read-only or full disk")
    return prefix


def read_only(path: Path, argv: list[str]) -> list[str]:
    """`argv` run with `path` bound read-only over itself."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return [*private_mounts(), "sh", "-ec", script, str(path), *argv]


def small_disk(path: Path, seed: Path, size_mb: int, argv: list[str], full: bool = False) -> list[str]:
    """`argv` run with a tmpfs of `size_mb` MiB over `path`, holding a copy of the folder `seed`; with `full`, a
    filler file takes the rest of its space first."""
    fill_up = 'dd if=/dev/zero of="$0/filler" bs=64k 2>/dev/null || true; ' if full else ""
    script = f'mount -t tmpfs -o size={size_mb}m tmpfs "$0" && cp -r "$1"/. "$0"/ && {fill_up}shift && exec "$@"'
    return [*private_mounts(), "sh", "-ec", script, str(path), str(seed), *argv]


def fill(folder: Path) -> Path:
    """Write zeros into `folder`/filler until its disk has no space left; returns the filler (delete it to free the
    space)."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as fh:
        for size in (1 << 20, 1 << 12, 1):  # smaller writes take the last pages a large one leaves
            try:
                while fh.write(bytes(size)):
                    pass
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
    return filler
