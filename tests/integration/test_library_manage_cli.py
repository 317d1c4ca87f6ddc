"""`claimtrace library list|remove|refresh` and `claimtrace threads delete` as a user runs them (subprocess), on a
temporary DATA_DIR with the tiny corpus indexed: a listed document says where it came from and which kept check
cites it; a removed one is gone from the next check; an unknown id is one line and removes nothing; a deleted thread
leaves no checkpoint, chat record or feedback row."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent.result import CheckResult
from agent.store.feedback import db_path, iter_feedback, record_feedback
from tests.integration.test_cli import assert_one_line_error, run
from tests.library_files import PAPER_DOI, indexed_env, paper_pdf, reference_files
from ui.chat.persistence import DB_NAME, ensure_schema
from ui.chat.session_files import FILES, MARK

CLAIM = "Vitamin D supplementation prevents hip fractures."
PAPER = f"lib:{PAPER_DOI}"
WALK = "lib:10.5555/walk.2020.7"
TEA = "lib:10.5555/tea.2017.3"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return indexed_env(tmp_path_factory.mktemp("data"))


def listed(env: dict[str, str]) -> dict[str, dict]:
    proc = run(["library", "list", "--json"], env)
    assert proc.returncode == 0, proc.stderr
    return {d["doc_id"]: d for d in json.loads(proc.stdout)["documents"]}


def test_list_then_remove_then_ask(env: dict[str, str], tmp_path: Path):
    bib, _ = reference_files(tmp_path)
    pdf = paper_pdf(tmp_path)
    assert run(["add", str(tmp_path)], env).returncode == 0
    docs = listed(env)
    assert set(docs) == {PAPER, WALK, TEA}
    assert docs[WALK]["file"] == str(bib.resolve()) and docs[PAPER]["file"] == str(pdf.resolve())
    assert docs[PAPER]["source"] == "library" and docs[PAPER]["added_at"] and docs[PAPER]["cited_by"] == []

    ask = run(["ask", CLAIM, "--sources", "library", "--json"], env)
    assert ask.returncode == 0, ask.stderr
    assert PAPER in {s["doc_id"] for s in json.loads(ask.stdout)["sources"]}
    thread = ask.stderr.split("Kept as thread ")[1].split()[0]
    assert listed(env)[PAPER]["cited_by"] == [thread]
    table = run(["library", "list"], env)
    assert table.returncode == 0 and PAPER in table.stdout and str(bib.resolve()) in table.stdout

    unknown = run(["library", "remove", PAPER, "lib:nope"], env)
    assert_one_line_error(unknown, 2, "no document 'lib:nope' in your library or among the fetched abstracts")
    corpus = run(["library", "remove", "101"], env)
    assert_one_line_error(corpus, 2, "101 is part of the built corpus")
    assert set(listed(env)) == {PAPER, WALK, TEA}  # nothing was removed

    removed = run(["library", "remove", PAPER], env)
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.startswith(f"removed {PAPER}: Vitamin D and hip fractures")
    assert set(listed(env)) == {WALK, TEA}
    again = run(["ask", CLAIM, "--sources", "library", "--json"], env)
    assert again.returncode == 0, again.stderr
    assert PAPER not in {s["doc_id"] for s in json.loads(again.stdout)["sources"]}

    refreshed = run(["library", "refresh"], env)
    assert refreshed.returncode == 0, refreshed.stderr
    assert refreshed.stdout.startswith("0 changed file(s) read again, 0 gone, 2 unchanged: 0 document(s) removed")
    bib.unlink()  # refs.ris still holds the tea paper
    refreshed = run(["library", "refresh"], env)
    assert refreshed.stdout.startswith("0 changed file(s) read again, 1 gone, 1 unchanged")
    assert set(listed(env)) == {TEA}
    by_source = run(["library", "remove", "--source", "library"], env)
    assert by_source.returncode == 0 and listed(env) == {}
    nothing = run(["library", "remove", "--source", "library"], env)
    assert_one_line_error(nothing, 2, "no kept document matches that")


def test_bad_requests_and_a_missing_index(env: dict[str, str], tmp_path: Path):
    assert_one_line_error(run(["library", "remove"], env), 2, "name the documents to remove")
    assert_one_line_error(run(["library", "remove", "--added-before", "yesterday"], env), 2,
                          "expected a date such as 2025-03-01, not 'yesterday'")
    missing = {**env, "DATA_DIR": str(tmp_path / "none")}
    assert_one_line_error(run(["library", "list"], missing), 3, "no index at")
    assert_one_line_error(run(["library", "remove", "x"], missing), 3, "no index at")


def test_a_deleted_thread_is_gone(env: dict[str, str]):
    ask = run(["ask", CLAIM, "--json"], env)
    assert ask.returncode == 0, ask.stderr
    thread = ask.stderr.split("Kept as thread ")[1].split()[0]
    data = Path(env["DATA_DIR"])
    result = CheckResult.model_validate(json.loads(ask.stdout))
    record_feedback(data, thread, result, 1, "unsupported")
    record_feedback(data, "another-thread", result, 1, "flag_wrong")
    chat = ensure_schema(data / "chainlit" / DB_NAME)
    with sqlite3.connect(chat) as conn:
        conn.execute('INSERT INTO threads ("id", "name") VALUES (?, ?)', (thread, CLAIM))
        conn.execute('INSERT INTO steps ("id", "name", "type", "threadId", "streaming") VALUES (?, ?, ?, ?, 0)',
                     ("s1", "user", "user_message", thread))
        conn.execute('INSERT INTO elements ("id", "threadId", "name") VALUES (?, ?, ?)', ("e1", thread, "report.md"))
    conn.close()
    files = data / "chainlit" / FILES  # what two chat sessions wrote: an export of this thread, a panel of another
    for sid, owner in (("session-1", thread), ("session-2", "another-thread")):
        (files / sid).mkdir(parents=True)
        (files / sid / MARK).write_text(owner)
        (files / sid / "report.md").write_text(CLAIM)

    deleted = run(["threads", "delete", thread[:8]], env)
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stderr.strip() == f"deleted thread {thread}: its checks, 3 chat record(s) and 1 feedback record(s)"
    assert thread not in run(["threads"], env).stdout
    assert_one_line_error(run(["export", thread, "--format", "md"], env), 2, f"no thread {thread!r}")
    assert [r["thread_id"] for r in iter_feedback(data)] == ["another-thread"]
    with sqlite3.connect(chat) as conn:
        counts = [conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("threads", "steps", "elements")]
    conn.close()
    assert counts == [0, 0, 0]
    with sqlite3.connect(data / "threads.sqlite") as conn:
        left = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (thread,)).fetchone()[0]
        left += conn.execute("SELECT COUNT(*) FROM writes WHERE thread_id = ?", (thread,)).fetchone()[0]
    conn.close()
    assert left == 0 and db_path(data).is_file()
    assert sorted(p.name for p in files.iterdir()) == ["session-2"]
    assert_one_line_error(run(["threads", "delete", thread], env), 2, f"no thread {thread!r} in the thread store")
