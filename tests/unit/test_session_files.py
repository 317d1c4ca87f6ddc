"""The files Chainlit writes for a chat session go with the session's thread (ui.chat.session_files): a session's
folder is marked with its thread once, and deleting the thread removes every folder marked with it and the folder of
each live session of the thread, leaving other threads' folders and unmarked ones alone."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from ui.chat.session_files import FILES, MARK, delete_thread_files, mark_session_files


def session(root: Path, sid: str, thread: str) -> SimpleNamespace:
    folder = root / FILES / sid
    folder.mkdir(parents=True)
    (folder / f"{sid}-export.md").write_text("# the check")
    return SimpleNamespace(id=sid, thread_id=thread, files_dir=folder, files={"f": {"path": folder / "x"}})


def test_a_threads_marked_and_live_session_folders_go_with_it(tmp_path: Path):
    from chainlit.session import ws_sessions_id

    mine, again, other = session(tmp_path, "s1", "t1"), session(tmp_path, "s2", "t1"), session(tmp_path, "s3", "t2")
    unmarked, live = session(tmp_path, "s4", "t1"), session(tmp_path, "s5", "t1")
    for s in (mine, again, other):
        mark_session_files(s)
    (mine.files_dir / MARK).write_text("overwritten")
    mark_session_files(mine)  # once per session: no second write
    assert (mine.files_dir / MARK).read_text() == "overwritten"
    (mine.files_dir / MARK).write_text("t1")
    assert (other.files_dir / MARK).read_text() == "t2"

    ws_sessions_id["s5"] = live  # a session this process still holds, its folder not marked yet
    try:
        assert delete_thread_files(tmp_path, "t1") == 3
    finally:
        del ws_sessions_id["s5"]
    assert not mine.files_dir.exists() and not again.files_dir.exists() and not live.files_dir.exists()
    assert live.files == {}  # a link the page still shows finds nothing
    assert other.files_dir.is_dir() and unmarked.files_dir.is_dir()  # another thread's, and one that names none
    assert delete_thread_files(tmp_path, "t1") == 0 and delete_thread_files(tmp_path / "none", "t1") == 0
