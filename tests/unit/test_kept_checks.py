"""The kept checks on the SQLite thread store (agent.store.kept_checks): found back by their claim's embedding, k,
min_similarity and visible_to respected, a thread forgotten, a second instance on the same file kept in step, and bad
embeddings or a damaged store refused with a clear error. Hand-made vectors, no embedder."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from agent.settings.app import Settings
from agent.store.checkpoint import SQLITE_NAME, CheckpointUnavailableError, close_checkpointer, open_checkpointer
from agent.store.kept_checks import TABLE, KeptCheck, KeptChecks, forget_kept, keep, kept_checks, nearest_kept
from tools.models.embedder import DIM


def vec(*entries: float) -> np.ndarray:
    """A DIM-long vector whose first entries are `entries`, the rest 0."""
    out = np.zeros(DIM, dtype=np.float32)
    out[: len(entries)] = entries
    return out


def check(thread: str, claim: str, by: str = "", verdict: str = "Supported") -> KeptCheck:
    return KeptCheck.new(thread, claim, verdict, papers_read=3, checked_by=by)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None).with_values(stores={"data_dir": tmp_path})  # type: ignore[call-arg]


@pytest.fixture
def store(settings: Settings):
    with kept_checks(settings) as s:
        yield s


def test_a_kept_check_is_found_back_first(store: KeptChecks, settings: Settings):
    coffee = check("t1", "Coffee prevents liver fibrosis.", verdict="Not enough evidence")
    store.add(coffee, vec(1, 0, 0))
    store.add(check("t2", "Sleep protects cognition."), vec(0, 1, 0))
    store.add(check("t3", "Tea improves memory."), vec(0, 0, 1))
    found = store.nearest(vec(0.9, 0.1, 0.05) * 7)  # any length: cosine similarity
    assert found[0][0] == coffee
    assert found[0][1] == pytest.approx(0.9 / np.sqrt(0.81 + 0.01 + 0.0025), abs=1e-6)
    assert [c.claim for c, _ in found] == ["Coffee prevents liver fibrosis.", "Sleep protects cognition.",
                                           "Tea improves memory."]  # fmt: skip
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    assert store.count() == 3
    # the table sits in the checkpointer's file, the embedding as raw float32 bytes
    with sqlite3.connect(settings.stores.data_dir / SQLITE_NAME) as conn:
        blob = conn.execute(f"SELECT embedding FROM {TABLE} WHERE check_id = ?", (coffee.check_id,)).fetchone()[0]
    assert len(blob) == DIM * 4 and np.frombuffer(blob, "<f4")[0] == pytest.approx(1.0)


def test_k_and_min_similarity(store: KeptChecks):
    for i in range(6):
        store.add(check(f"t{i}", f"claim {i}"), vec(1, i * 0.5))  # similarity to (1, 0) falls with i
    assert [c.claim for c, _ in store.nearest(vec(1, 0), k=2)] == ["claim 0", "claim 1"]
    assert len(store.nearest(vec(1, 0), k=10)) == 6
    assert store.nearest(vec(1, 0), k=0) == []
    close = store.nearest(vec(1, 0), k=10, min_similarity=0.7)  # 1.0, 0.894, 0.707; 0.555 and below are not
    assert [c.claim for c, _ in close] == ["claim 0", "claim 1", "claim 2"]
    assert all(s >= 0.7 for _, s in close)
    assert store.nearest(vec(-1, 0), min_similarity=0.0) == []


def test_visible_to_shows_only_that_users_checks(store: KeptChecks):
    store.add(check("t1", "Ann's claim", by="ann"), vec(1, 0))
    store.add(check("t2", "Bob's claim", by="bob"), vec(1, 0.1))
    store.add(check("t3", "nobody's claim"), vec(1, 0.2))
    assert [c.claim for c, _ in store.nearest(vec(0, 1), visible_to="ann")] == ["Ann's claim"]
    assert [c.checked_by for c, _ in store.nearest(vec(1, 0), visible_to="bob")] == ["bob"]
    assert store.nearest(vec(1, 0), visible_to="carol") == []
    assert len(store.nearest(vec(1, 0))) == 3


def test_forget_thread_and_a_second_instance_keeps_in_step(store: KeptChecks, settings: Settings):
    store.add(check("gone", "first of the gone thread"), vec(1, 0))
    store.add(check("gone", "second of the gone thread"), vec(1, 0.1))
    store.add(check("stays", "of the thread that stays"), vec(1, 0.2))
    with kept_checks(settings) as other:
        assert len(other.nearest(vec(1, 0))) == 3  # the first lookup reads the table
        assert store.forget_thread("gone") == 2
        assert [c.thread_id for c, _ in other.nearest(vec(1, 0))] == ["stays"]
        assert other.index.reloads == 1 and len(other.index) == 1  # rows went: read again
        assert store.forget_thread("gone") == 0 and store.forget_thread("never kept") == 0
        new = check("new", "added by the first instance")
        store.add(new, vec(0, 1))
        assert other.nearest(vec(0, 1), k=1)[0][0] == new
        assert other.index.reloads == 1 and len(other.index) == 2  # only the new row was read
        assert other.index.rows_read == 3 + 1 + 1
    assert store.count() == 2


def test_a_row_deleted_by_hand_is_never_answered(store: KeptChecks, settings: Settings):
    store.add(check("t1", "deleted in SQL"), vec(1))
    store.add(check("t2", "kept"), vec(1, 0.5))
    assert len(store.nearest(vec(1))) == 2
    with sqlite3.connect(settings.stores.data_dir / SQLITE_NAME) as conn:
        conn.execute(f"DELETE FROM {TABLE} WHERE thread_id = 't1'")  # the generation does not move
    assert [c.claim for c, _ in store.nearest(vec(1))] == ["kept"]


def test_a_check_kept_twice_is_one_row(store: KeptChecks):
    once = check("t1", "Coffee prevents liver fibrosis.")
    store.add(once, vec(1))
    store.add_many([(once, vec(1)), (check("t2", "Sleep protects cognition."), vec(0, 1))])
    assert store.count() == 2


def test_bad_embeddings_are_refused(store: KeptChecks):
    with pytest.raises(ValueError, match=r"shape \(3,\); the kept checks hold 384-dimensional vectors"):
        store.add(check("t1", "short"), np.ones(3, dtype=np.float32))
    with pytest.raises(ValueError, match="384-dimensional"):
        store.nearest(np.ones((2, DIM), dtype=np.float32))
    with pytest.raises(ValueError, match="zero length"):
        store.add(check("t1", "zero"), vec())
    with pytest.raises(ValueError, match="384-dimensional"):  # nothing of a batch is kept when one is wrong
        store.add_many([(check("t1", "fine"), vec(1)), (check("t2", "wrong"), np.ones(DIM + 1))])
    assert store.count() == 0
    store.add(check("t1", "a batch of one is taken"), vec(1)[None, :])
    assert store.count() == 1


def test_a_stored_embedding_of_another_width_is_skipped(store: KeptChecks, settings: Settings, caplog):
    store.add(check("t1", "good"), vec(1))
    with sqlite3.connect(settings.stores.data_dir / SQLITE_NAME) as conn:
        conn.execute(
            f"INSERT INTO {TABLE} (check_id, thread_id, claim, verdict, papers_read, checked_at, checked_by, "
            "embedding) VALUES ('x', 't2', 'old model', 'Supported', 1, '2024-01-01T00:00:00+00:00', '', ?)",
            (np.ones(768, dtype="<f4").tobytes(),),
        )
    assert [c.claim for c, _ in store.nearest(vec(1))] == ["good"]
    assert "1 kept check(s) skipped" in caplog.text
    store.add(check("t3", "later"), vec(1, 1))
    assert len(store.nearest(vec(1))) == 2 and store.index.reloads == 0  # the skipped row does not upset the counts


def test_a_damaged_store_is_refused(settings: Settings):
    settings.stores.data_dir.mkdir(parents=True, exist_ok=True)
    (settings.stores.data_dir / SQLITE_NAME).write_bytes(b"not a database at all" * 100)
    with pytest.raises(CheckpointUnavailableError, match="cannot open the kept checks"):
        KeptChecks(settings)


def test_beside_an_open_checkpointer(settings: Settings):
    async def both() -> list[str]:
        saver = await open_checkpointer(settings)  # holds its own connection to the same file
        try:
            keep(settings, check("t1", "kept while the checkpointer is open"), vec(1))
            return [c.claim for c, _ in nearest_kept(settings, vec(1))]
        finally:
            await close_checkpointer(saver)

    assert asyncio.run(both()) == ["kept while the checkpointer is open"]
    assert forget_kept(settings, "t1") == 1


def test_reading_creates_no_store(settings: Settings):
    assert nearest_kept(settings, vec(1)) == [] and forget_kept(settings, "t1") == 0
    assert not (settings.stores.data_dir / SQLITE_NAME).exists()
