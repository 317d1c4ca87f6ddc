"""The files Chainlit writes for a chat session (an Export's four files, each side-panel text, an upload) live in the
app root's `.files/<session id>/`. Chainlit removes that folder when the session ends and every such folder at a clean
shutdown, but not when the session's thread is deleted, and a server killed with -9 leaves them all. So each
session's folder names its thread (a `.thread` file holding the thread id, written the first time the session stores
a step or opens the side panel), and deleting a thread (the chat's delete button, `claimtrace threads delete`)
removes every folder that names it, and the folder of each session of the thread that this process still holds.

A folder that names no thread (written before the mark existed) is left for Chainlit's clean shutdown to remove.
No module of Chainlit is imported until a session is marked or a live session is looked up, so the command line
stays quick."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FILES = ".files"  # Chainlit's FILES_DIRECTORY under the app root (ui.chat.launch.app_root)
MARK = ".thread"
_marked: set[str] = set()  # session ids whose folder is marked, so that a step costs no file write


def mark_session_files(session: Any) -> None:
    """Write the session's thread id into its files folder, once per session."""
    if session is None or session.id in _marked or not session.thread_id:
        return
    folder = Path(session.files_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARK).write_text(str(session.thread_id), encoding="utf-8")
    _marked.add(session.id)


def mark_current_session() -> None:
    """`mark_session_files` for the session of the running Chainlit context; nothing outside one."""
    from chainlit.context import context

    try:
        session = context.session
    except Exception:  # no chat context (a test, a background task of the app)
        return
    mark_session_files(session)


def _live_folders(thread_id: str) -> list[Path]:
    """The files folders of this process's live sessions of the thread; their file lists are emptied, so that a
    link the page still shows answers 404."""
    import sys

    if "chainlit.session" not in sys.modules:  # the command line: no session lives in this process
        return []
    from chainlit.session import ws_sessions_id

    folders = []
    for session in list(ws_sessions_id.values()):
        if session.thread_id == thread_id:
            session.files.clear()
            _marked.discard(session.id)
            folders.append(Path(session.files_dir))
    return folders


def delete_thread_files(app_root: Path, thread_id: str) -> int:
    """Remove the files folders of the thread's sessions; returns how many were removed. A folder that cannot be
    removed is logged and left (the thread's other records are deleted all the same)."""
    root = app_root / FILES
    named = []
    if root.is_dir():
        for mark in root.glob(f"*/{MARK}"):
            try:
                if mark.read_text(encoding="utf-8").strip() == thread_id:
                    named.append(mark.parent)
            except (OSError, UnicodeDecodeError):
                continue
    removed = 0
    for folder in dict.fromkeys([*named, *_live_folders(thread_id)]):
        if not folder.is_dir():
            continue
        try:
            shutil.rmtree(folder)
            removed += 1
        except OSError as e:
            log.warning("the files of a deleted thread's session at %s could not be removed (%s)", folder, e)
    return removed
