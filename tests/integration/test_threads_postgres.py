"""agent.store.threads on Postgres (CHECKPOINT_URL, a real server on loopback): a kept check is listed and read back as
on the SQLite store."""

from __future__ import annotations

from pathlib import Path

from agent.settings.app import Settings
from agent.store.threads import checks_of, keep_check, threads
from tests.integration.pg_server import PostgresServer
from tests.integration.test_checkpoint_postgres import postgres  # noqa: F401


def test_threads_on_postgres(postgres: PostgresServer, tmp_path: Path):  # noqa: F811
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path, "checkpoint_url": postgres.url}
    )
    first = keep_check(settings, {"claim": "Coffee prevents liver fibrosis.", "sources": []})
    second = keep_check(settings, {"claim": "Sleep protects cognition.", "sources": []})
    listed = [(s.thread_id, s.checks, s.claim) for s in threads(settings)]
    assert listed == [(second, 1, "Sleep protects cognition."), (first, 1, "Coffee prevents liver fibrosis.")]
    assert checks_of(settings, first[:8]) == (first, [{"claim": "Coffee prevents liver fibrosis.", "sources": []}])
    assert not list(tmp_path.iterdir())  # nothing went to the SQLite store
