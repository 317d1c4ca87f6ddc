"""Everything a user owns in one Postgres (DATABASE_URL), on a real PostgreSQL server on loopback started by the test,
each test in a database of its own: a chat thread one instance (a process of its own) writes through Chainlit's data
layer is listed and read by another, with the login secret and generated password both share; feedback recorded
with DATABASE_URL is read by `claimtrace feedback export` with another DATA_DIR; `claimtrace migrate` copies a SQLite
DATA_DIR and a second run writes nothing twice; and a deleted thread leaves no row in Postgres."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from agent.result import CheckResult
from agent.settings.app import Settings, get_settings
from tests.integration.chat_threads import CLAIM, read_threads, write_thread
from tests.integration.pg_server import PostgresServer
from tests.integration.test_checkpoint_postgres import postgres  # noqa: F401
from tests.integration.test_cli import run
from tests.unit.test_ui_render import RESULT as RESULT_JSON

REPO = Path(__file__).resolve().parents[2]
RESULT = CheckResult.model_validate(RESULT_JSON)
# every table a user's data lives in, and the column naming its thread
THREAD_ROWS = {
    "threads": "id", "steps": "threadId", "feedbacks": "threadId", "elements": "threadId", "feedback": "thread_id",
    "checkpoints": "thread_id", "checkpoint_writes": "thread_id", "checkpoint_blobs": "thread_id",
}


@pytest.fixture
def database(postgres: PostgresServer) -> str:  # noqa: F811
    """The URL of a new, empty database on the test server."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres.url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture
def use_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Set settings variables for this process (get_settings reads them afresh)."""

    def apply(**values: str) -> Settings:
        for k, v in values.items():
            monkeypatch.setenv(k, v)
        get_settings.cache_clear()
        return get_settings()

    yield apply
    get_settings.cache_clear()


def env_for(data_dir: Path, database_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATA_DIR", "DATABASE_URL", "CHECKPOINT_URL")}
    env["DATA_DIR"] = str(data_dir)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


INSTANCE_A = """
import asyncio, json, sys
from agent.settings.app import get_settings
from tests.integration.chat_threads import write_thread
from ui.chat import credentials, launch

settings = get_settings()
asyncio.run(write_thread(sys.argv[1], sys.argv[2]))
secret = launch.auth_secret(settings, launch.app_root(settings))
print(json.dumps({"password": credentials.first_start_password(settings), "secret": secret}))
"""


def instance_a(data_dir: Path, url: str, thread_id: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", INSTANCE_A, thread_id, CLAIM], env=env_for(data_dir, url), cwd=REPO,
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def test_a_thread_one_instance_writes_is_listed_and_read_by_another(database: str, tmp_path: Path, use_env: Any):
    from ui.chat import credentials, launch

    thread_id = str(uuid.uuid4())
    a = instance_a(tmp_path / "a", database, thread_id)
    b = use_env(DATA_DIR=str(tmp_path / "b"), DATABASE_URL=database)

    listed, thread = asyncio.run(read_threads())
    assert listed == [thread_id] and thread is not None
    assert thread["name"] == CLAIM and thread["metadata"] == {"claimtrace": "kept"}  # jsonb: read as a dict
    assert [(s["type"], s["output"]) for s in thread["steps"]] == [
        ("user_message", CLAIM), ("assistant_message", "No link was found [1].")]
    # one login for both: B checks the password A generated, and signs tokens with A's secret
    assert a["password"] and credentials_ok_on(b, a["password"]) and not credentials_ok_on(b, "wrong")
    assert credentials.first_start_password(b) is None and not credentials.must_generate(b)
    assert launch.auth_secret(b, launch.app_root(b)) == a["secret"]
    # nothing of it went to either instance's DATA_DIR
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").rglob("*.sqlite"))
    assert not any((tmp_path / "a").rglob("*.sqlite")) and not any((tmp_path / "a").rglob("password.scrypt"))


def credentials_ok_on(settings: Settings, password: str) -> bool:
    from ui.chat.credentials import credentials_ok

    return credentials_ok(settings, settings.ui.user, password)


def test_feedback_recorded_with_database_url_is_read_by_the_cli(database: str, tmp_path: Path, use_env: Any):
    from agent.store.feedback import record_feedback

    chat = use_env(DATA_DIR=str(tmp_path / "chat"), DATABASE_URL=database)
    record_feedback(chat, "thread-on-a", RESULT, 1, "unsupported")
    record_feedback(chat, "thread-on-a", RESULT, 3, "flag_wrong")
    assert not (tmp_path / "chat").exists()  # no feedback.sqlite

    proc = run(["feedback", "export"], env_for(tmp_path / "other", database))
    assert proc.returncode == 0, proc.stderr
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["thread_id"], r["kind"], r["sentence_index"]) for r in got] == [
        ("thread-on-a", "unsupported", 1), ("thread-on-a", "flag_wrong", 3)]
    assert got[0]["claim"] == RESULT.claim and got[1]["verifier"]["status"] == "contradicted"
    # without DATABASE_URL the same command reads DATA_DIR's (empty) SQLite store
    assert run(["feedback", "export"], env_for(tmp_path / "other")).stdout == ""


def counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        tables = ["users", *THREAD_ROWS, "claimtrace_shared"]
        return {t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables}  # type: ignore[index]


def test_migrate_copies_a_sqlite_data_dir_and_a_second_run_writes_nothing(
    database: str, tmp_path: Path, use_env: Any
):
    from agent.store.feedback import iter_feedback, record_feedback
    from agent.store.kept_checks import KeptCheck, keep, nearest_kept
    from agent.store.threads import checks_of, keep_check, threads
    from tools.models.embedder import DIM
    from ui.chat import credentials, launch

    source = use_env(DATA_DIR=str(tmp_path / "sqlite"))
    chat_thread = str(uuid.uuid4())
    asyncio.run(write_thread(chat_thread, CLAIM))
    kept = [keep_check(source, {"claim": CLAIM, "sources": []}),
            keep_check(source, {"claim": "Sleep protects cognition.", "sources": []})]
    record_feedback(source, kept[0], RESULT, 1, "unsupported")
    record_feedback(source, kept[1], RESULT, 2, "flag_wrong")
    matching = KeptCheck.new(kept[0], CLAIM, "Not enough evidence", 3, "alice")
    keep(source, matching, np.eye(DIM, dtype=np.float32)[7])  # findable by its claim's embedding
    password = credentials.first_start_password(source)
    secret = launch.auth_secret(source, launch.app_root(source))
    assert password and (tmp_path / "sqlite" / "chainlit" / "chainlit.sqlite").is_file()

    first = run(["migrate", "--to", database], env_for(tmp_path / "sqlite"))
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    for expected in ("chat users: 1 copied, 0 already there", "chat threads: 1 copied, 0 already there",
                     "chat steps: 2 copied, 0 already there", "feedback: 2 copied, 0 already there",
                     "checks kept for matching: 1 copied, 0 already there",
                     "login secret: copied", "generated password's hash: copied"):
        assert expected in lines, first.stdout
    copied = counts(database)
    assert copied["checkpoints"] >= 2 and f"checkpoints: {copied['checkpoints']} copied, 0 already there" in lines

    again = run(["migrate", "--to", database], env_for(tmp_path / "sqlite"))
    assert again.returncode == 0, again.stderr
    assert all(" 0 copied" in line for line in again.stdout.splitlines() if "copied," in line), again.stdout
    assert "login secret: already there" in again.stdout and counts(database) == copied

    # read back through DATABASE_URL by an instance with a DATA_DIR of its own
    target = use_env(DATA_DIR=str(tmp_path / "new"), DATABASE_URL=database)
    assert sorted(s.thread_id for s in threads(target)) == sorted(kept)
    assert checks_of(target, kept[1]) == (kept[1], [{"claim": "Sleep protects cognition.", "sources": []}])
    assert [(r["thread_id"], r["kind"]) for r in iter_feedback(target)] == [
        (kept[0], "unsupported"), (kept[1], "flag_wrong")]
    assert nearest_kept(target, np.eye(DIM, dtype=np.float32)[7]) == [(matching, pytest.approx(1.0))]
    listed, thread = asyncio.run(read_threads())
    assert listed == [chat_thread] and thread is not None and len(thread["steps"]) == 2
    assert credentials_ok_on(target, password) and launch.auth_secret(target, launch.app_root(target)) == secret


def test_migrate_refuses_what_it_cannot_use(tmp_path: Path):
    proc = run(["migrate", "--to", "mysql://db.example/claims"], env_for(tmp_path))
    assert proc.returncode == 2 and "must start with postgresql://" in proc.stderr
    proc = run(["migrate"], env_for(tmp_path))
    assert proc.returncode == 2 and "--to postgresql://" in proc.stderr


def test_a_database_that_cannot_be_reached(tmp_path: Path):
    from tests.integration.test_cli import assert_one_line_error
    from tests.ports import free_port

    env = env_for(tmp_path, f"postgresql://claimtrace@127.0.0.1:{free_port()}/claimtrace")
    refused = "cannot connect to DATABASE_URL"
    assert_one_line_error(run(["feedback", "export"], env), 3, f"cannot read the feedback: {refused}")
    assert_one_line_error(run(["threads"], env), 3, "cannot read the thread store: cannot connect to DATABASE_URL")
    assert_one_line_error(run(["migrate"], env), 3, "cannot connect to DATABASE_URL")


def thread_rows(url: str, thread_id: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {
            t: int(conn.execute(f'SELECT count(*) FROM {t} WHERE "{c}" = %s', (thread_id,)).fetchone()[0])  # type: ignore[index]
            for t, c in THREAD_ROWS.items()
        }


def test_a_deleted_thread_leaves_no_row_in_postgres(database: str, tmp_path: Path, use_env: Any):
    from chainlit.data.sql_alchemy import SQLAlchemyDataLayer

    from agent.store.checkpoint import close_checkpointer, open_checkpointer
    from agent.store.feedback import record_feedback
    from agent.store.forget import forget_thread
    from agent.store.threads import save_check
    from ui.chat.forget import chat_data_layer

    settings = use_env(DATA_DIR=str(tmp_path), DATABASE_URL=database)
    by_cli, by_chat, stays = (str(uuid.uuid4()) for _ in range(3))

    async def keep(thread_id: str) -> None:
        await write_thread(thread_id, CLAIM)
        saver = await open_checkpointer(settings)
        try:
            await save_check(saver, {"claim": CLAIM, "sources": []}, thread_id=thread_id)
        finally:
            await close_checkpointer(saver)
        record_feedback(settings, thread_id, RESULT, 1, "unsupported")

    for thread_id in (by_cli, by_chat, stays):
        asyncio.run(keep(thread_id))
    before = thread_rows(database, stays)
    assert before["threads"] == 1 and before["steps"] == 2 and before["checkpoints"] >= 1 and before["feedback"] == 1

    proc = run(["threads", "delete", by_cli], env_for(tmp_path, database))
    assert proc.returncode == 0, proc.stderr
    assert "3 chat record(s) and 1 feedback record(s)" in proc.stderr

    async def delete_in_chat() -> None:  # what the chat's delete button runs (ui.chat.forget.ChatDataLayer)
        layer = chat_data_layer()
        saver = await open_checkpointer(settings)
        try:
            await SQLAlchemyDataLayer.delete_thread(layer, by_chat)  # ChatDataLayer's first step
            await forget_thread(saver, settings, by_chat)
        finally:
            await close_checkpointer(saver)
            await layer.close()

    asyncio.run(delete_in_chat())
    assert set(thread_rows(database, by_cli).values()) == {0}
    assert set(thread_rows(database, by_chat).values()) == {0}
    assert thread_rows(database, stays) == before
