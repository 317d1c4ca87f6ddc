"""Claim after claim in one chat, in headless Chromium: a new claim typed after a check is checked exactly as typed;
the side panel follows the user: it opens only on a button, at once, each answer's "Source n" opening its own check's
paper under that check's claim, and a panel the user opened stays as it is while the next check runs and after its
answer comes; a follow-up the LLM turns into a claim of its own says which claim it checks and offers the user's words
instead, an offer a thread reopened after a restart makes again (with every button of every answer) until the words
are checked as typed."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM, REWRITTEN, TWINS
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import (
    ANSWER_TIMEOUT_MS,
    log_in,
    opens,
    restart_and_reopen,
    send,
    turn_ended,
)
from tests.e2e.test_full_disk import copied, thread_results

VITAMIN_D = "Vitamin D supplementation reduces fracture risk in older adults."


def answers(page: Any) -> Any:
    return page.locator(".message-content").filter(has_text="Verdict:")


def wait_for_answers(page: Any, n: int) -> None:
    expect(answers(page)).to_have_count(n, timeout=ANSWER_TIMEOUT_MS)


def checked_claims(server: ChatServer, page: Any, tmp_path: Path, n: int, timeout_s: float = 30.0) -> list[str]:
    """The claims of the thread's checks, as stored (the thread id is the page's /thread/<id>), once the store holds
    ``n`` of them: the answer on screen is the first sign of a check, and its checkpoint is written beside it."""
    deadline = time.monotonic() + timeout_s
    while True:
        match = re.search(r"/thread/([0-9a-f-]+)", page.url)
        assert match, page.url
        copy = tmp_path / f"copy{len(list(tmp_path.iterdir()))}"
        try:
            claims = [r["claim"] for r in thread_results(copied(Path(server.env["DATA_DIR"]) / "threads.sqlite", copy),
                                                         match.group(1))]  # fmt: skip
        except sqlite3.DatabaseError:  # copied in the middle of a write: read it again
            claims = []
        if len(claims) >= n or time.monotonic() > deadline:
            return claims
        time.sleep(0.2)


def message_of(answer: Any) -> Any:
    """The answer's whole message: its text and the buttons under it."""
    return answer.locator("xpath=..")


def test_a_new_claim_is_checked_as_typed_and_the_side_panel_follows_the_user(
    browser: Any, server: ChatServer, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    content, title = page.locator("#side-view-content"), page.locator("#side-view-title")
    log_in(page, server.url)
    send(page, CLAIM)
    wait_for_answers(page, 1)
    expect(content).to_have_count(0)  # nothing opens the panel but the user
    opens(page, "Source 1", "measles", scope=message_of(answers(page).first))
    expect(title).to_contain_text(f"Source 1 of “{CLAIM}”")

    send(page, VITAMIN_D)
    wait_for_answers(page, 2)
    assert checked_claims(server, page, tmp_path, 2) == [CLAIM, VITAMIN_D]  # the user's words, not a rewrite
    # the whole turn has come (the answer, then its papers' contexts written into it): whatever it would re-point the
    # panel with is on screen, and the panel is still the one the user opened
    turn_ended(page)
    expect(title).to_contain_text(CLAIM, timeout=1)  # the new answer leaves the panel the user opened as it was
    expect(content).to_contain_text("measles", ignore_case=True, timeout=1)
    expect(content).not_to_contain_text("vitamin d", ignore_case=True, timeout=1)

    # each answer's "Source 1" opens its own check's paper, under its own claim
    opens(page, "Source 1", "vitamin d", scope=message_of(answers(page).last))
    expect(title).to_contain_text(VITAMIN_D)
    expect(content).not_to_contain_text("measles", ignore_case=True)
    opens(page, "Source 1", "measles", scope=message_of(answers(page).first))
    expect(title).to_contain_text(CLAIM)
    expect(content).not_to_contain_text("vitamin d", ignore_case=True)


def test_a_follow_up_the_llm_rewrites_offers_the_users_own_words_after_a_restart_too(
    browser: Any, server: ChatServer, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    offer = page.get_by_role("button", name="Check my words instead")
    log_in(page, server.url)
    send(page, CLAIM)
    wait_for_answers(page, 1)
    send(page, TWINS)
    page.get_by_text(f"I read your message as a new claim to check: “{REWRITTEN}”").wait_for(timeout=60_000)
    wait_for_answers(page, 2)
    assert checked_claims(server, page, tmp_path, 2) == [CLAIM, REWRITTEN]
    expect(offer).to_have_count(1)

    # the server is killed and restarted: the reopened thread offers the user's words again, as it does every button
    # of every answer, each opening its source
    thread_url = page.url
    restart_and_reopen(page, server, thread_url)
    wait_for_answers(page, 2)
    offer.click()
    wait_for_answers(page, 3)
    assert checked_claims(server, page, tmp_path, 3) == [CLAIM, REWRITTEN, TWINS]
    expect(offer).to_have_count(0)  # offered until pressed, then gone
    opens(page, "Source 1", "measles", scope=message_of(answers(page).first))

    # reopened once more: the words are checked, so nothing offers them again; every answer has its buttons
    page.goto(thread_url)
    wait_for_answers(page, 3)
    for n in range(3):
        message = message_of(answers(page).nth(n))
        expect(message.get_by_role("button", name="Export")).to_have_count(1, timeout=30_000)
        shown = answers(page).nth(n).inner_text()
        papers = set(re.findall(r"Source (\d+)", shown))  # each paper the answer lists
        expect(message.get_by_role("button", name=re.compile(r"^Source \d+$"))).to_have_count(len(papers))
        uncounted = set(re.findall(r"Uncounted paper (\d+)", shown))  # each paper it read and did not count
        expect(message.get_by_role("button", name=re.compile(r"^Uncounted paper \d+$"))).to_have_count(len(uncounted))
    expect(offer).to_have_count(0)
