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


def test_a_thread_deleted_on_postgres_is_gone(postgres: PostgresServer, tmp_path: Path):  # noqa: F811
    import asyncio

    from agent.store.checkpoint import close_checkpointer, open_checkpointer
    from agent.store.forget import cited_documents, delete_thread, resolve

    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path, "checkpoint_url": postgres.url}
    )
    gone = keep_check(settings, {"claim": "Tea improves memory.", "sources": [{"doc_id": "lib:tea"}]})
    stays = keep_check(settings, {"claim": "Salt raises blood pressure.", "sources": [{"doc_id": "lib:tea"}]})
    assert resolve(settings, gone[:8]) == gone
    assert delete_thread(settings, gone).had_checkpoints
    listed = [s.thread_id for s in threads(settings)]  # the server is shared with the test above
    assert stays in listed and gone not in listed and resolve(settings, gone) is None

    async def left() -> tuple[int, dict[str, list[str]]]:
        saver = await open_checkpointer(settings)
        try:
            async with saver.conn.connection() as conn:
                rows = 0
                for table in ("checkpoints", "checkpoint_writes", "checkpoint_blobs"):
                    cur = await conn.execute(f"SELECT COUNT(*) AS n FROM {table} WHERE thread_id = %s", (gone,))
                    rows += (await cur.fetchone())["n"]
            return rows, await cited_documents(saver)
        finally:
            await close_checkpointer(saver)

    assert asyncio.run(left()) == (0, {"lib:tea": [stays]})
