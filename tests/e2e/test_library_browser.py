"""Your papers and your threads under your control, in headless Chromium against a real `claimtrace ui` server of its
own (the tiny corpus plus two kept documents: a library paper on zinc and an abstract fetched from Europe PMC on
garlic). A paper removed with the chat's Remove button, or with `claimtrace library remove` while the chat runs, is
gone from the library and from every later check, and the past check that cited it keeps its sentences, marked; a
thread deleted from the chat's thread list takes its checkpoints, chat records, feedback and files with it."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import BEARS, CHOOSE_NOT, CONTEXT_RULE, STOP_SEARCHING
from tests.e2e.conftest import chat_environment
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import answer_text, log_in, opens, send
from tests.integration.test_cli import run
from tests.unit.test_library_manage import FETCHED, MINE
from tools.index.live_docs import LIVE_DOCS, removed_log
from ui.chat.session_files import FILES, MARK
from ui.export.formats import FORMATS as EXPORT_FORMATS

# the feedback button under answer sentence 1: reporting it as unsupported, or its flag as wrong (ui.chat.views)
FEEDBACK_1 = re.compile(r"^(Report sentence 1 as unsupported|Report the flag on sentence 1 as wrong)$")
ZINC = "Zinc lozenges shorten the duration of cold symptoms."
GARLIC = "Eating garlic cures influenza within one night."
MMR = "The MMR vaccine causes autism."
SCRIPT = [
    {
        "when": "search questions",
        "reply": json.dumps({"questions": ["What did the study find?"], "opposite_claim": "It is not so."}),
    },
    STOP_SEARCHING, BEARS, CHOOSE_NOT, CONTEXT_RULE,
    {"when": "<evidence>", "reply": "1: The study reported this finding."},
]


@pytest.fixture(scope="module")
def library_chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatServer]:
    from tools.index.local import CorpusIndex

    data = tmp_path_factory.mktemp("library_chat")
    env = {**chat_environment(data, SCRIPT), "SOURCES": "local,library"}  # the user's library is searched too
    index = CorpusIndex(data / "index")
    index.add_abstracts([MINE])
    index.add_abstracts([FETCHED])  # the newest: listed first
    del index
    srv = ChatServer(env, data / "server.log").start()
    yield srv
    srv.stop()


def data_dir(server: ChatServer) -> Path:
    return Path(server.env["DATA_DIR"])


def new_chat(page: Any, server: ChatServer) -> None:
    """A new, empty chat (a new thread) in the same browser session."""
    page.goto(server.url + "/")
    page.locator("#chat-input").wait_for(timeout=60_000)


def check(page: Any, claim: str) -> str:
    send(page, claim)
    return answer_text(page)


def message(page: Any, holding: str) -> Any:
    """The latest message whose text holds ``holding``, once it is there."""
    found = page.locator(".message-content").filter(has_text=holding).last
    found.wait_for(timeout=60_000)
    return found


def step(page: Any, holding: str) -> Any:
    """The latest step (a message with its buttons) whose text holds ``holding``."""
    message(page, holding)
    return page.locator("[data-step-type]").filter(has_text=holding).last


def eventually(condition: Callable[[], bool], timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_a_paper_removed_in_the_chat_leaves_later_checks_and_past_checks_keep_it_marked(
    browser: Any, library_chat: ChatServer
):
    page = browser.new_page(viewport={"width": 1280, "height": 2000})
    log_in(page, library_chat.url)
    assert MINE.title in check(page, ZINC)  # the library paper is the check's source [1]
    page.wait_for_url("**/thread/**", timeout=60_000)
    past = page.url

    send(page, "/library")
    listed = step(page, "Your library")
    expect(listed).to_contain_text(MINE.title)
    expect(listed).to_contain_text("cited by 1 kept check(s)")  # the check just made
    listed.get_by_role("button", name="Remove 2", exact=True).click()  # newest first: the zinc paper is second
    asked = step(page, "No later check will find it")
    expect(asked).to_contain_text(MINE.title)
    asked.get_by_role("button", name="Remove it", exact=True).click()
    today = datetime.now(UTC).date().isoformat()
    message(page, f"from the index on {today}")

    index_dir = data_dir(library_chat) / "index"
    assert MINE.doc_id in removed_log(index_dir) and MINE.doc_id not in (index_dir / LIVE_DOCS).read_text()
    send(page, "/library")
    relisted = message(page, "Your library")
    expect(relisted).not_to_contain_text(MINE.title)
    new_chat(page, library_chat)
    assert MINE.title not in check(page, ZINC)  # a later check in the running chat no longer finds it

    # the past check keeps the paper's sentences, marked with the day it left, where they are shown on demand
    page.goto(past)
    message(page, MINE.title)
    opens(page, "Source 1", f"removed from the library on {today}")
    expect(page.locator("#side-view-content")).to_contain_text(MINE.sentences[0])
    send(page, "what are the sources behind sentence 1?")
    cites = message(page, "It cites:")
    expect(cites).to_contain_text(f"removed from the library on {today}")
    expect(cites).to_contain_text(MINE.title)


def test_a_removal_from_the_command_line_reaches_the_running_chat(browser: Any, library_chat: ChatServer):
    """`claimtrace library remove` is another process: the running chat's index notices the removal before its next
    search (tools.index.local.CorpusIndex.notice_removals), with no restart."""
    page = browser.new_page(viewport={"width": 1280, "height": 2000})
    log_in(page, library_chat.url)
    assert FETCHED.title in check(page, GARLIC)
    removed = run(["library", "remove", FETCHED.doc_id], library_chat.env)
    assert removed.returncode == 0, removed.stderr
    new_chat(page, library_chat)
    assert FETCHED.title not in check(page, GARLIC)
    send(page, "/library")
    expect(message(page, "Your library")).not_to_contain_text(FETCHED.title)


def counts(data: Path, thread: str) -> dict[str, int]:
    """What the stores hold of one thread: checkpoints and writes, Chainlit's thread row, steps and elements, the
    feedback rows, and the chat sessions' files folders that name it."""
    out: dict[str, int] = {}
    with sqlite3.connect(data / "threads.sqlite") as conn:
        for table in ("checkpoints", "writes"):
            out[table] = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE thread_id = ?", (thread,)).fetchone()[0]
    conn.close()
    with sqlite3.connect(data / "chainlit" / "chainlit.sqlite") as conn:
        out["threads"] = conn.execute('SELECT COUNT(*) FROM threads WHERE "id" = ?', (thread,)).fetchone()[0]
        for table in ("steps", "elements", "feedbacks"):
            out[table] = conn.execute(f'SELECT COUNT(*) FROM {table} WHERE "threadId" = ?', (thread,)).fetchone()[0]
    conn.close()
    with sqlite3.connect(data / "feedback.sqlite") as conn:
        out["feedback"] = conn.execute("SELECT COUNT(*) FROM feedback WHERE thread_id = ?", (thread,)).fetchone()[0]
    conn.close()
    marks = (data / "chainlit" / FILES).glob(f"*/{MARK}")
    out["files"] = sum(1 for m in marks if m.read_text() == thread)
    return out


def test_a_thread_deleted_in_the_chat_is_gone(browser: Any, library_chat: ChatServer):
    data = data_dir(library_chat)
    page = browser.new_page(viewport={"width": 1280, "height": 2000})
    log_in(page, library_chat.url)
    check(page, MMR)
    page.wait_for_url("**/thread/**", timeout=60_000)
    thread = page.url.rstrip("/").rsplit("/", 1)[1]
    page.get_by_role("button", name=FEEDBACK_1).click()
    message(page, "Thanks: recorded that on sentence 1")
    page.get_by_role("button", name="Export").last.click()
    # Chainlit keeps each file of the export as it sends it, one by one after the message's text: all four links on
    # screen, all four files are kept
    links = step(page, "Export of the check of").locator("a[href*='/project/file/']")
    expect(links).to_have_count(len(EXPORT_FORMATS), timeout=30_000)
    before = counts(data, thread)
    assert all(before[k] for k in ("checkpoints", "threads", "steps", "feedback", "files")), before
    folder = next(m.parent for m in (data / "chainlit" / FILES).glob(f"*/{MARK}") if m.read_text() == thread)
    assert len([p for p in folder.iterdir() if p.name != MARK]) >= len(EXPORT_FORMATS)  # the export's files, at least

    item = page.locator(f"a[href$='/thread/{thread}']").first
    item.hover()
    item.locator("xpath=ancestor::li[1]").locator("#thread-options").click()
    page.locator("#delete-thread").click()
    page.get_by_role("button", name="Confirm", exact=True).click()
    gone = {k: 0 for k in before}
    assert eventually(lambda: counts(data, thread) == gone), f"left after the deletion: {counts(data, thread)!s}"
    assert not folder.exists()
    expect(page.locator(f"a[href$='/thread/{thread}']")).to_have_count(0)
