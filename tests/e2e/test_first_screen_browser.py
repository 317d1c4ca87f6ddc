"""The first screen and the order of a check's view, in headless Chromium: a new chat shows claimtrace's name, what it
reads and the four example claims; a starter starts a check as if typed; after the check the answer is on screen and
the steps are one closed "How this was checked" element under it, whose steps show only when it is opened; the
passage starter lists its claims."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, answer_text, log_in, turn_ended
from ui.chat.first_screen import NAME, PASSAGE, REFUTED, STARTERS
from ui.chat.progress import PARENT
from ui.chat.steps import STEP_NAMES


def starter(page: Any, message: str) -> Any:
    label = next(s.label for s in STARTERS if s.message == message)
    return page.locator("#starters").get_by_role("button", name=label, exact=True)


def step(page: Any, name: str) -> Any:
    return page.locator(f'[id="step-{name}"]')  # Chainlit 2.12 names a step's title element step-<name>


def shots(tmp_path: Path) -> Path:
    return Path(os.environ.get("CLAIMTRACE_E2E_SHOTS", tmp_path))


def test_first_screen_shows_the_name_what_it_reads_and_four_starters(
    browser: Any, server: ChatServer, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, server.url)
    welcome = page.locator("#welcome-screen")
    welcome.wait_for(timeout=60_000)
    # the profile's description and the starters come from the server after the screen is drawn: each is waited for
    for shown in (NAME, "local index of scientific abstracts", "your own library"):
        expect(welcome).to_contain_text(shown, use_inner_text=True, timeout=30_000)
    buttons = page.locator("#starters button")
    expect(buttons).to_have_text([s.label for s in STARTERS], use_inner_text=True, timeout=30_000)  # four, in order
    expect(page).to_have_title(NAME)
    expect(page.locator("#chat-input")).to_have_attribute("placeholder", "Type a scientific claim, or paste a passage")
    # the icon on the first screen, the favicon and the logos are claimtrace's own files from ui/chat/public/
    icon = welcome.locator("img").first
    expect(icon).to_have_attribute("src", re.compile(r"/public/favicon\.svg$"), timeout=30_000)
    expect(icon).to_have_js_property("complete", True)
    assert icon.evaluate("img => img.naturalWidth") > 0
    for path in ("/favicon", "/logo?theme=light", "/logo?theme=dark"):
        response = page.request.get(server.url + path)
        assert response.ok and b"<title>claimtrace</title>" in response.body(), path
    page.screenshot(path=str(shots(tmp_path) / "first_screen.png"))


def test_a_starter_checks_its_claim_and_the_answer_comes_before_the_steps(
    browser: Any, server: ChatServer, tmp_path: Path
):
    assert REFUTED == CLAIM  # the scripted LLM of tests/e2e/conftest.py answers this claim
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, server.url)
    button = starter(page, REFUTED)
    expect(button).to_be_enabled(timeout=60_000)
    button.click()
    text = answer_text(page)
    assert "Verdict:" in text and "Sources" in text
    turn_ended(page)  # every step update of the check has come
    expect(page.locator("#welcome-screen")).to_have_count(0)

    parent = step(page, PARENT)
    expect(parent).to_have_count(1)
    expect(parent).to_have_text(PARENT, use_inner_text=True)  # no "Used" before it
    expect(parent).to_have_attribute("aria-expanded", "false")
    for name in ("retrieve", "assess", "verdict", "answer"):  # the steps inside are not drawn while it is closed
        expect(step(page, STEP_NAMES[name])).to_have_count(0)
    # closed, it is one line, under the answer
    assert parent.bounding_box()["height"] < 60
    answer = page.locator(".message-content").filter(has_text="Verdict:").last
    expect(answer).to_be_visible()
    assert answer.bounding_box()["y"] < parent.bounding_box()["y"]
    verdict_line = answer.get_by_text("Verdict:").first
    verdict_line.scroll_into_view_if_needed()
    expect(verdict_line).to_be_in_viewport()
    page.screenshot(path=str(shots(tmp_path) / "check_steps_closed.png"), full_page=True)

    parent.click()
    expect(parent).to_have_attribute("aria-expanded", "true")
    for name in ("retrieve", "assess", "verdict", "answer"):  # each step of the check, as it was
        expect(step(page, STEP_NAMES[name]).first).to_be_visible(timeout=10_000)
    page.screenshot(path=str(shots(tmp_path) / "check_steps_open.png"), full_page=True)


def test_the_passage_starter_lists_its_claims(browser: Any, server: ChatServer):
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    log_in(page, server.url)
    button = starter(page, PASSAGE)
    expect(button).to_be_enabled(timeout=60_000)
    button.click()
    listing = page.locator(".message-content").filter(has_text="checkable claims").last
    expect(listing).to_contain_text("This text states 3 checkable claims", timeout=ANSWER_TIMEOUT_MS)
    page.get_by_role("button", name="Check 3 claims", exact=True).last.wait_for(timeout=30_000)
