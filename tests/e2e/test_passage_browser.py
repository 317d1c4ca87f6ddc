"""A passage pasted into the chat, in headless Chromium: its claims are listed before anything is checked, one is
dropped and one reworded, then the table fills in and each row opens its full check, whose follow-ups are about
that claim; the passage exports, and a reopened thread keeps the table's buttons."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, answer_text, log_in, send

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
    listing.wait_for(timeout=60_000)
    assert "This text states 3 checkable claims" in listing.inner_text()
    assert "Concerns about vaccines persist among parents" in page.locator(".message-content").filter(
        has_text="Not checked").last.inner_text()  # the background sentence, with its reason
    assert "Verdict:" not in page.content()  # nothing is checked before the user says so

    button(page, "Drop 3").click()  # the sleep claim
    page.get_by_text("This text states 2 checkable claims").wait_for(timeout=30_000)
    assert "dementia" not in listing.inner_text()
    button(page, "Edit 2").click()
    page.get_by_text("Send claim 2 as it should be checked").wait_for(timeout=30_000)
    send(page, REWORDED)
    page.locator(".message-content").filter(has_text="(your wording)").last.wait_for(timeout=30_000)
    assert REWORDED in listing.inner_text()

    button(page, "Check 2 claims").click()
    table = page.locator(".message-content").filter(has_text="The passage's claims").last
    table.wait_for(timeout=60_000)
    button(page, "Export the passage").wait_for(timeout=ANSWER_TIMEOUT_MS)  # the last button: every check ended
    rows = table.inner_text()
    assert "provisional" not in rows and "The MMR vaccine causes autism" in rows and REWORDED in rows
    report = page.locator(".message-content").filter(has_text="each claim marked by its verdict").last
    assert "⟦1:" in report.inner_text() and "⟦2:" in report.inner_text()

    page.screenshot(path=str(shots / "passage_table.png"), full_page=True)

    # claim 1 is opened after claim 2 was checked (the thread's newest check): follow-ups are about claim 1
    button(page, "Open claim 1").click()
    page.get_by_text("claim 1 of the passage").wait_for(timeout=60_000)
    assert "The MMR vaccine causes autism" in answer_text(page)
    send(page, "Why is the verdict what it is?")  # answered from the opened check's own figures
    why = page.locator(".message-content").filter(has_text="Weighted grade").last
    why.wait_for(timeout=60_000)
    assert "Measles-mumps-rubella vaccination and autism" in why.inner_text()
    assert "Coffee consumption" not in why.inner_text()

    button(page, "Export the passage").click()
    page.get_by_text("claimtrace-passage.md").first.wait_for(timeout=30_000)

    thread_url = page.url
    page.goto(thread_url)  # a reopened thread: the table's buttons come back
    button(page, "Open claim 2").wait_for(timeout=60_000)
    button(page, "Open claim 2").click()
    page.get_by_text("claim 2 of the passage").wait_for(timeout=60_000)
    assert REWORDED in answer_text(page)
