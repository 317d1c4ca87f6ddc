"""A passage pasted into the chat, in headless Chromium: its claims are listed before anything is checked, one is
dropped and one reworded, then the table fills in and each row opens its full check, whose follow-ups are about
that claim; the passage exports, and a reopened thread keeps the table's buttons."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, answer_text, log_in, send
from ui.export.formats import FORMATS

PASSAGE = (
    "Concerns about vaccines persist among parents. The MMR vaccine causes autism. "
    "Daily coffee intake was associated with less advanced liver fibrosis in hepatitis C. "
    "Sleep of six hours or less at age 50 was associated with a higher dementia risk."
)
REWORDED = "Drinking coffee every day is associated with less liver fibrosis in hepatitis C."


def button(page: Any, name: str) -> Any:
    return page.get_by_role("button", name=name, exact=True).last


def test_passage_claims_edited_checked_and_opened(browser: Any, server: ChatServer, tmp_path: Path):
    shots = Path(os.environ.get("CLAIMTRACE_E2E_SHOTS", tmp_path))
    page = browser.new_page(viewport={"width": 1280, "height": 2400})
    log_in(page, server.url)
    send(page, PASSAGE)
    listing = page.locator(".message-content").filter(has_text="checkable claims").last
    expect(listing).to_contain_text("This text states 3 checkable claims", timeout=60_000)
    expect(page.locator(".message-content").filter(has_text="Not checked").last).to_contain_text(
        "Concerns about vaccines persist among parents")  # the background sentence, with its reason
    assert "Verdict:" not in page.content()  # nothing is checked before the user says so

    button(page, "Drop 3").click()  # the sleep claim
    expect(listing).to_contain_text("This text states 2 checkable claims", timeout=30_000)
    expect(listing).not_to_contain_text("dementia")
    button(page, "Edit 2").click()
    page.get_by_text("Send claim 2 as it should be checked").wait_for(timeout=30_000)
    send(page, REWORDED)
    expect(listing).to_contain_text("(your wording)", timeout=30_000)
    expect(listing).to_contain_text(REWORDED)

    button(page, "Check 2 claims").click()
    table = page.locator(".message-content").filter(has_text="The passage's claims").last
    table.wait_for(timeout=60_000)
    # the last button, sent with the table's last update: every check ended
    button(page, "Export the passage").wait_for(timeout=ANSWER_TIMEOUT_MS)
    expect(table).not_to_contain_text("provisional")
    expect(table).to_contain_text("The MMR vaccine causes autism")
    expect(table).to_contain_text(REWORDED)
    report = page.locator(".message-content").filter(has_text="each claim marked by its verdict").last
    expect(report).to_contain_text("⟦1:", timeout=30_000)  # the report comes after the table's last update
    expect(report).to_contain_text("⟦2:")

    page.screenshot(path=str(shots / "passage_table.png"), full_page=True)

    # claim 1 is opened after claim 2 was checked (the thread's newest check): follow-ups are about claim 1
    button(page, "Open claim 1").click()
    page.get_by_text("claim 1 of the passage").wait_for(timeout=60_000)
    assert "The MMR vaccine causes autism" in answer_text(page)
    send(page, "Why is the verdict what it is?")  # answered from the opened check's own figures
    why = page.locator(".message-content").filter(has_text="Weighted grade").last
    expect(why).to_contain_text("Measles-mumps-rubella vaccination and autism", timeout=60_000)
    assert "Coffee consumption" not in why.inner_text()

    button(page, "Export the passage").click()
    files = page.locator("[data-step-type]").filter(has_text="of the passage: a Markdown report").last
    expect(files.locator("a[href*='/project/file/']")).to_have_count(len(FORMATS), timeout=30_000)  # sent one by one
    expect(files).to_contain_text("claimtrace-passage.md")

    thread_url = page.url
    page.goto(thread_url)  # a reopened thread: the table's buttons come back
    button(page, "Open claim 2").wait_for(timeout=60_000)
    button(page, "Open claim 2").click()
    page.get_by_text("claim 2 of the passage").wait_for(timeout=60_000)
    assert REWORDED in answer_text(page)
