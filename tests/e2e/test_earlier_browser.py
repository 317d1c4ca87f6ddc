"""Checked before, in headless Chromium (ui/chat/earlier_view.py): a claim is checked; in a new chat the same claim
in other words is not searched but shown at once as checked before, with its verdict, date, who checked it and the
earlier wording; "Open the check of ..." shows the earlier answer as it was kept, and "Check again now" runs a new
check that keeps a link to the earlier one. The paraphrase is one the shipped claim verifier reads as the same claim
by a wide margin (P(same) 0.93, the threshold 0.65), and the scripted LLM reads it so too, should the verifier be
unsure of it on another CPU; how well the matcher tells paraphrases, opposites and related claims apart is measured on
evals/claim_matching/pairs.jsonl and tested in tests/unit/test_earlier_checks.py."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM, SCRIPT, USER, chat_environment
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, log_in, send, turn_ended
from tests.e2e.test_full_disk import copied, thread_results
from tests.e2e.test_library_browser import new_chat

AGAIN = "Autism is caused by MMR vaccination."
# the LLM reads the paraphrase as the claim (agent.earlier.relation.llm_same), should the verifier be unsure of it
SAME_CLAIM = {"when": f"<claim>{AGAIN}</claim>", "reply": "Yes", "top_logprobs": {"Yes": 0.95, "No": 0.05}}
# the issue's own pair: the shipped verifier leaves it unsure (P(same) 0.31, P(opposite) 0.04: its other words are
# synonyms), so the LLM reads it; held 8 s a reading, so that the candidate shown meanwhile can be seen
MACROLIDES = "Macrolides protect against myocardial infarction."
IN_OTHER_WORDS = "Do macrolide antibiotics prevent heart attacks?"
READ_SLOWLY = {"when": f"<claim>{IN_OTHER_WORDS}</claim>", "reply": "Yes", "top_logprobs": {"Yes": 0.9, "No": 0.1},
               "delay_s": 8}


@pytest.fixture(scope="module")
def earlier_chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatServer]:
    rules = [SAME_CLAIM, READ_SLOWLY, *SCRIPT]
    env = chat_environment(tmp_path_factory.mktemp("earlier_chat"), rules) | {"EARLIER_CHECKS": "true"}
    srv = ChatServer(env, Path(env["DATA_DIR"]) / "server.log").start()
    yield srv
    srv.stop()


def kept_rows(server: ChatServer, into: Path, n: int, timeout_s: float = 60.0) -> list[tuple[str, str]]:
    """(thread id, claim) of each check the chat recorded for matching, once there are ``n`` of them: the answer on
    screen comes first, its record right after it."""
    deadline = time.monotonic() + timeout_s
    while True:
        copy = copied(Path(server.env["DATA_DIR"]) / "threads.sqlite", into / f"copy{time.monotonic_ns()}")
        try:
            with sqlite3.connect(copy) as conn:
                rows = conn.execute("SELECT thread_id, claim FROM kept_checks ORDER BY seq").fetchall()
        except sqlite3.DatabaseError:  # no table yet, or copied in the middle of a write
            rows = []
        if len(rows) >= n or time.monotonic() > deadline:
            return [(str(t), str(c)) for t, c in rows]
        time.sleep(0.3)


def thread_of(page: Any) -> str:
    match = re.search(r"/thread/([0-9a-f-]+)", page.url)
    assert match, page.url
    return match.group(1)


def test_a_claim_checked_before_is_offered_and_checked_again_on_request(
    browser: Any, earlier_chat: ChatServer, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    answers = page.locator(".message-content").filter(has_text="Verdict:")
    log_in(page, earlier_chat.url)
    send(page, CLAIM)
    expect(answers).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    turn_ended(page)
    first = thread_of(page)
    assert kept_rows(earlier_chat, tmp_path, 1) == [(first, CLAIM)]

    new_chat(page, earlier_chat)
    send(page, AGAIN)
    offer = page.locator(".message-content").filter(has_text="Checked before.")
    expect(offer).to_have_count(1, timeout=30_000)
    expect(offer).to_contain_text(re.compile(
        rf"This claim: Checked on \d+ \w+ \d{{4}} by {USER}, worded .{re.escape(CLAIM)}.: .+ read\)\."))
    turn_ended(page)
    expect(answers).to_have_count(0)  # nothing was searched

    page.get_by_role("button", name=re.compile(r"^Open the check of ")).click()
    kept = page.locator(".message-content").filter(has_text="as it was kept:")
    expect(kept).to_have_count(1, timeout=30_000)
    expect(kept).to_contain_text("Verdict:")

    page.get_by_role("button", name="Check again now", exact=True).click()
    expect(answers).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)  # the kept one shown, and the new check
    turn_ended(page)
    rows = kept_rows(earlier_chat, tmp_path, 2)
    second = thread_of(page)
    assert rows[0] == (first, CLAIM) and rows[1] == (second, AGAIN) and len(rows) == 2
    [again] = thread_results(copied(Path(earlier_chat.env["DATA_DIR"]) / "threads.sqlite", tmp_path / "last"), second)
    assert [(e["relation"], e["thread_id"]) for e in again["earlier"]] == [("same", first)]


def test_a_claim_the_verifier_is_unsure_of_shows_as_a_candidate_while_the_llm_reads_it(
    browser: Any, earlier_chat: ChatServer, tmp_path: Path
):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    answers = page.locator(".message-content").filter(has_text="Verdict:")
    log_in(page, earlier_chat.url)
    before = len(kept_rows(earlier_chat, tmp_path, 0))
    send(page, MACROLIDES)
    expect(answers).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    turn_ended(page)
    first = thread_of(page)
    assert kept_rows(earlier_chat, tmp_path, before + 1)[-1] == (first, MACROLIDES)

    new_chat(page, earlier_chat)
    send(page, IN_OTHER_WORDS)
    candidate = page.locator(".message-content").filter(has_text="Maybe checked before.")
    expect(candidate).to_have_count(1, timeout=30_000)  # while the LLM reads (16 s), with the earlier wording
    expect(candidate).to_contain_text(re.compile(rf"worded .{re.escape(MACROLIDES)}.: .+ read\)\."))
    expect(page.get_by_role("button", name=re.compile(r"^Open the check of "))).to_have_count(1)
    offer = page.locator(".message-content").filter(has_text="Checked before.")
    expect(offer).to_contain_text(re.compile(rf"This claim: Checked on \d+ \w+ \d{{4}} by {USER}, worded "
                                             rf".{re.escape(MACROLIDES)}."), timeout=60_000)
    expect(candidate).to_have_count(0)  # the same message, now the offer
    expect(page.get_by_role("button", name="Check again now", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name=re.compile(r"^Open the check of "))).to_have_count(1)
    turn_ended(page)
    expect(answers).to_have_count(0)  # nothing was searched: the user chooses
