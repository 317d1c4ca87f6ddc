"""Claim after claim in one chat, in headless Chromium: a new claim typed after a check is checked exactly as typed,
the side panel follows the check being read (its sources, under its claim), each answer's "Source n" opens its own
source; a follow-up the LLM turns into a claim of its own says which claim it checks and offers the user's words
instead, which are then checked as typed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM, REWRITTEN, TWINS
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, log_in, panel_settled, send
from tests.e2e.test_full_disk import copied, thread_results

VITAMIN_D = "Vitamin D supplementation reduces fracture risk in older adults."


def answers(page: Any) -> Any:
    return page.locator(".message-content").filter(has_text="Verdict:")


def wait_for_answers(page: Any, n: int) -> None:
    expect(answers(page)).to_have_count(n, timeout=ANSWER_TIMEOUT_MS)
    panel_settled(page)  # the side panel's update follows the answer


def checked_claims(server: ChatServer, page: Any, tmp_path: Path) -> list[str]:
    """The claims of the thread's checks, as stored (the thread id is the page's /thread/<id>)."""
    match = re.search(r"/thread/([0-9a-f-]+)", page.url)
    assert match, page.url
    db = copied(Path(server.env["DATA_DIR"]) / "threads.sqlite", tmp_path / f"copy{len(list(tmp_path.iterdir()))}")
    return [r["claim"] for r in thread_results(db, match.group(1))]


def panel_shows(page: Any, text: str, without: str = "") -> None:
    """Wait for the side panel to show ``text`` and, once it has settled, not ``without`` (its panels load their
    text after they are drawn, and Chainlit may show every panel of the thread for a moment before the check's
    own are set)."""
    content = page.locator("#side-view-content")
    expect(content).to_contain_text(text, ignore_case=True, timeout=30_000)
    if without:
        expect(content).not_to_contain_text(without, ignore_case=True, timeout=30_000)


def test_a_new_claim_is_checked_as_typed_and_the_side_panel_follows_it(
    browser: Any, server: ChatServer, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    log_in(page, server.url)
    send(page, CLAIM)
    wait_for_answers(page, 1)
    expect(page.locator("#side-view-title")).to_contain_text(CLAIM, timeout=30_000)
    panel_shows(page, "measles")

    send(page, VITAMIN_D)
    wait_for_answers(page, 2)
    assert checked_claims(server, page, tmp_path) == [CLAIM, VITAMIN_D]  # the user's words, not a rewrite
    expect(page.locator("#side-view-title")).to_contain_text(VITAMIN_D, timeout=30_000)
    panel_shows(page, "vitamin d", without="measles")

    # each answer's "Source 1" opens its own check's source 1
    answers(page).first.locator("a", has_text="Source 1").first.click()
    panel_shows(page, "measles")
    answers(page).last.locator("a", has_text="Source 1").first.click()
    panel_shows(page, "vitamin d", without="measles")


def test_a_follow_up_the_llm_rewrites_offers_the_users_own_words(browser: Any, server: ChatServer, tmp_path: Path):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    log_in(page, server.url)
    send(page, CLAIM)
    wait_for_answers(page, 1)
    send(page, TWINS)
    page.get_by_text(f"I read your message as a new claim to check: “{REWRITTEN}”").wait_for(timeout=60_000)
    wait_for_answers(page, 2)
    assert checked_claims(server, page, tmp_path) == [CLAIM, REWRITTEN]
    page.get_by_role("button", name="Check my words instead").click()
    wait_for_answers(page, 3)
    assert checked_claims(server, page, tmp_path) == [CLAIM, REWRITTEN, TWINS]
    expect(page.get_by_role("button", name="Check my words instead")).to_have_count(0)  # offered once, then gone
