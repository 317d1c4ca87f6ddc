"""What opening or searching the local index raises: no index, a damaged one, a dense index still being built."""

from __future__ import annotations

from pathlib import Path

from tools.index.dense_store import DenseStoreError


class DenseIndexBuilding(DenseStoreError):
    """The dense index is still being built: the keyword index answers meanwhile."""

    def __init__(self, done: int, of: int) -> None:
        super().__init__(f"the dense index is still being built ({done:,} of {of:,} sentences, {100 * done // of} %)")
        self.done, self.of = done, of


class IndexMissingError(RuntimeError):
    """No usable index on disk."""


class IndexDamagedError(IndexMissingError):
    """A part of the index on disk cannot be read; building the index again mends it."""

    def __init__(self, index_dir: Path, what: str) -> None:
        super().__init__(f"the index at {index_dir} is damaged ({what}); rebuild it with `claimtrace index --force`")
