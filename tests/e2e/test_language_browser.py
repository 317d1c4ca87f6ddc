"""A claim in German, in headless Chromium (agent/translate.py): the chat says which English claim it checks, as
"Checked as: ...", with "Check my words instead", and answers the English claim; the thread keeps the user's words
and their language. The answer itself is in English (docs/languages.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, log_in, send, turn_ended
from tests.e2e.test_followup_browser import checked_claims

GERMAN = "Der MMR-Impfstoff verursacht Autismus."


def test_a_german_claim_is_checked_as_its_english_translation(browser: Any, server: ChatServer, tmp_path: Path):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    log_in(page, server.url)
    send(page, GERMAN)
    notice = page.locator(".message-content").filter(has_text="Checked as:")
    expect(notice).to_contain_text(f"Checked as: “{CLAIM}”", timeout=60_000)
    expect(notice).to_contain_text("translated from German by the LLM")
    expect(page.get_by_role("button", name="Check my words instead")).to_have_count(1)
    expect(page.locator(".message-content").filter(has_text="Verdict:")).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    turn_ended(page)
    assert checked_claims(server, page, tmp_path, 1) == [CLAIM]  # the English claim is what was checked
