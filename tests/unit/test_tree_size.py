"""The tracked tree stays small enough to carry: a GPU session takes at most 64 MiB with the tracked files included,
and a clone should not cost a newcomer minutes. Model weights are stored as compact deltas, results as gzip."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_TRACKED_BYTES = 25_000_000
MAX_FILE_BYTES = 6_000_000


def tracked_sizes() -> dict[str, int]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    paths = [p for p in out.decode().split("\0") if p]
    return {p: (ROOT / p).stat().st_size for p in paths if (ROOT / p).is_file()}


def test_the_tracked_tree_is_at_most_25_mb() -> None:
    sizes = tracked_sizes()
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    assert sum(sizes.values()) <= MAX_TRACKED_BYTES, largest


def test_no_tracked_file_is_larger_than_a_verifier_delta() -> None:
    big = {p: n for p, n in tracked_sizes().items() if n > MAX_FILE_BYTES}
    assert not big
