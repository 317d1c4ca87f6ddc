"""The kept checks on Postgres (CHECKPOINT_URL, a real server on loopback): two instances on one database, as two
chat servers share one; a check one keeps the other finds, a thread one forgets the other no longer finds."""

from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np
import pytest

from agent.settings.app import Settings
from agent.store.checkpoint import CheckpointUnavailableError
from agent.store.kept_checks import KeptCheck, KeptChecks, kept_checks
from tests.integration.pg_server import PostgresServer
from tests.integration.test_checkpoint_postgres import postgres  # noqa: F401
from tests.ports import free_port
from tools.models.embedder import DIM


def vec(*entries: float) -> np.ndarray:
    out = np.zeros(DIM, dtype=np.float32)
    out[: len(entries)] = entries
    return out


def test_two_instances_share_the_kept_checks(postgres: PostgresServer, tmp_path: Path):  # noqa: F811
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path, "checkpoint_url": postgres.url}
    )
    gone, stays = f"gone-{uuid.uuid4()}", f"stays-{uuid.uuid4()}"  # the server is shared with other tests
    coffee = KeptCheck.new(gone, "Coffee prevents liver fibrosis.", "Supported", 4, checked_by="ann")
    salt = KeptCheck.new(stays, "Salt raises blood pressure.", "Not enough evidence", 2, checked_by="bob")
    with kept_checks(settings) as one, kept_checks(settings) as two:
        assert isinstance(one, KeptChecks)
        before = two.count()
        two.nearest(vec(1))  # the second instance's matrix is loaded before the first one writes
        one.add(coffee, vec(1, 0.1))
        one.add(salt, vec(0.1, 1))
        found = two.nearest(vec(1, 0.05), k=1, visible_to="ann")
        assert [c for c, _ in found] == [coffee] and found[0][1] > 0.99
        assert two.nearest(vec(0.1, 1), k=1)[0][0] == salt
        assert two.index.reloads == 0  # the new rows only were read
        assert two.count() == before + 2

        assert one.forget_thread(gone) == 1
        assert coffee not in [c for c, _ in two.nearest(vec(1, 0.1), k=50)]
        assert two.nearest(vec(1, 0.1), visible_to="ann", min_similarity=0.99) == []
        assert two.index.reloads == 1
        assert two.nearest(vec(0.1, 1), k=1)[0][0] == salt
    assert not list(tmp_path.iterdir())  # nothing went to the SQLite store


def test_an_unreachable_postgres_is_a_clear_error(tmp_path: Path):
    url = f"postgresql://claimtrace@127.0.0.1:{free_port()}/postgres"  # nothing listens there
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path, "checkpoint_url": url}
    )
    with pytest.raises(CheckpointUnavailableError, match="cannot create the kept checks table at CHECKPOINT_URL"):
        KeptChecks(settings)
