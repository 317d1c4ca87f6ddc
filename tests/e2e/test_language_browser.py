"""A claim in German, in headless Chromium (agent/translate.py, tools/text/i18n.py): the chat says, in German, which
English claim it checks ("Geprüft als: ..."), with "Stattdessen meine Worte prüfen", and shows the verdict line,
headings and buttons in German; the answer's sentences stay in English, as written and verified. A follow-up in
German is answered with German fixed words too. The thread keeps the English claim, the user's words and their
language (docs/languages.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, log_in, send, turn_ended
from tests.e2e.test_followup_browser import checked_claims

GERMAN = "Der MMR-Impfstoff verursacht Autismus."
GERMAN_FOLLOWUP = "Was haben die Kohortenstudien zu Autismus herausgefunden?"


def test_a_german_claim_is_checked_in_english_and_answered_with_german_words(
    browser: Any, server: ChatServer, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    log_in(page, server.url)
    send(page, GERMAN)
    notice = page.locator(".message-content").filter(has_text="Geprüft als:")
    expect(notice).to_contain_text(f"Geprüft als: „{CLAIM}“", timeout=60_000)
    expect(notice).to_contain_text("vom LLM übersetzt aus dem Original auf Deutsch")
    expect(page.get_by_role("button", name="Stattdessen meine Worte prüfen")).to_have_count(1)
    answer = page.locator(".message-content").filter(has_text="Urteil:")
    expect(answer).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    turn_ended(page)
    expect(answer).to_contain_text("Quellen")  # the heading of the sources, in German
    expect(page.get_by_role("button", name="Quelle 1")).to_have_count(1)
    expect(page.locator(".message-content").filter(has_text="Verdict:")).to_have_count(0)
    assert checked_claims(server, page, tmp_path, 1) == [CLAIM]  # the English claim is what was checked

    send(page, GERMAN_FOLLOWUP)
    reply = page.locator(".message-content").filter(has_text="Beantwortet aus den")
    expect(reply).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    expect(reply).to_contain_text("[1]")  # a cited sentence, written and checked in English
    expect(reply).not_to_contain_text("Answered from the")
    turn_ended(page)
