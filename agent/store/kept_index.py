"""The in-process search side of the kept checks (agent.store.kept_checks): every kept check's unit-normalised claim
embedding as one row of a float32 matrix, with its sequence number and who checked it, searched by brute force (one
matrix-vector product and a partial sort).

Brute force, because it is fast enough and exact: at 100,000 kept checks of 384 dimensions the product reads 150 MB
and takes about 10 ms on one core, with no index to build, persist or keep in step with the database
(evals/bench/kept_checks.py measures it against a Chroma collection of the same vectors). The product is
`np.vecdot`, one thread, rather than a BLAS matrix-vector product: OpenBLAS splits that between two threads, and on
a two-core machine with other work running the second thread waits for a scheduler tick, 100 ms a lookup instead
of 10 (measured). The matrix is a list of fixed-size blocks, so that new rows never copy the ones held.

The matrix follows the database cheaply. Each row there has a sequence number that only grows, is never reused,
and is taken in commit order (SQLite writes one transaction at a time; on Postgres every write takes a lock), so no
row ever appears below the highest number a reader has seen; and every deletion raises a generation number in the
same transaction. A refresh reads, in one snapshot, the generation, the highest sequence number and the rows above
the highest number held here, each through an index: while the generation stays, the new rows are appended; when
it moved, rows went away (an instance forgot a thread) and the whole matrix is read again. A row deleted behind
the store's back (by hand, in SQL) stays in the matrix until then, and its owner (KeptChecks) drops it from the
answers when it reads the winners' rows."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

BLOCK = 8192  # rows of one block of the matrix (12 MB at 384 dimensions)


@dataclass(frozen=True)
class Stats:
    """Where the table stands: its generation (raised by every deletion) and highest sequence number (0: empty)."""

    generation: int
    max_seq: int


Row = tuple[int, str, bytes]  # sequence number, checked_by, the embedding's float32 bytes (little-endian)
# the table's Stats and its rows with a sequence number above the argument, read in one snapshot
Reader = Callable[[int], tuple[Stats, Sequence[Row]]]


class VectorIndex:
    """The kept checks' embeddings in memory, refreshed from the database before each search. Not thread-safe: its
    owner (KeptChecks) holds a lock around refresh and search."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.reloads = 0  # how often the whole table was read again because rows had gone
        self.rows_read = 0  # rows read from the table, all told
        self._clear()

    def _clear(self) -> None:
        self._blocks: list[np.ndarray] = []
        self._seqs = np.zeros(BLOCK, dtype=np.int64)
        self._owners = np.zeros(BLOCK, dtype=np.int32)
        self._codes: dict[str, int] = {}
        self._n = 0
        self._stats = Stats(0, 0)  # the table at the last refresh

    def __len__(self) -> int:
        return self._n

    def refresh(self, read: Reader) -> None:
        """Bring the matrix in step with the table: the new rows only while none went, else all of it."""
        held = self._stats
        stats, rows = read(held.max_seq)
        if held.max_seq and (stats.generation != held.generation or stats.max_seq < held.max_seq):
            stats, rows = read(0)
            self._clear()
            self.reloads += 1
        self._append(rows)
        self.rows_read += len(rows)
        self._stats = stats

    def _append(self, rows: Sequence[Row]) -> None:
        width = self.dim * 4
        good = [r for r in rows if len(r[2]) == width]
        if len(good) < len(rows):
            log.warning(
                "%d kept check(s) skipped: their embedding is not %d float32 values (another embedding model?)",
                len(rows) - len(good),
                self.dim,
            )
        for start in range(0, len(good), BLOCK):
            chunk = good[start : start + BLOCK]
            vectors = np.frombuffer(b"".join([r[2] for r in chunk]), dtype="<f4").reshape(len(chunk), self.dim)
            norms = np.linalg.norm(vectors, axis=1)
            usable = np.isfinite(norms) & (norms > 0)  # a zero or broken vector has no direction to compare
            seqs = np.fromiter((r[0] for r in chunk), dtype=np.int64, count=len(chunk))
            owners = np.fromiter((self._code(r[1]) for r in chunk), dtype=np.int32, count=len(chunk))
            self._put(vectors[usable] / norms[usable, None], seqs[usable], owners[usable])

    def _put(self, vectors: np.ndarray, seqs: np.ndarray, owners: np.ndarray) -> None:
        end = self._n + len(seqs)
        if end > len(self._seqs):
            grown = max(end, 2 * len(self._seqs))
            self._seqs = np.concatenate([self._seqs, np.zeros(grown - len(self._seqs), dtype=np.int64)])
            self._owners = np.concatenate([self._owners, np.zeros(grown - len(self._owners), dtype=np.int32)])
        self._seqs[self._n : end], self._owners[self._n : end] = seqs, owners
        done = 0
        while done < len(seqs):
            block, at = divmod(self._n, BLOCK)
            if block == len(self._blocks):
                self._blocks.append(np.empty((BLOCK, self.dim), dtype=np.float32))
            take = min(BLOCK - at, len(seqs) - done)
            self._blocks[block][at : at + take] = vectors[done : done + take]
            done += take
            self._n += take

    def _code(self, owner: str) -> int:
        code = self._codes.get(owner)
        if code is None:
            code = self._codes[owner] = len(self._codes)
        return code

    def search(
        self, query: np.ndarray, k: int, min_similarity: float, visible_to: str | None
    ) -> list[tuple[int, float]]:
        """(sequence number, cosine similarity) of the `k` rows nearest the unit vector `query`, best first, at least
        `min_similarity`; only rows checked by `visible_to` unless it is None."""
        n = self._n
        if k <= 0 or not n:
            return []
        query = np.asarray(query, dtype=np.float32)
        scores = np.empty(n, dtype=np.float32)
        for b, block in enumerate(self._blocks):
            start, end = b * BLOCK, min((b + 1) * BLOCK, n)
            np.vecdot(block[: end - start], query, out=scores[start:end])
        if visible_to is not None:
            code = self._codes.get(visible_to)
            if code is None:
                return []
            scores[self._owners[:n] != code] = -np.inf
        top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self._seqs[i]), min(float(scores[i]), 1.0)) for i in top if scores[i] >= min_similarity]
