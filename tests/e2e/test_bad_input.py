"""Bad input in the chat follows the CLI rules (agent.service.validate_claim): one clear message in the chat, and the
same thread then checks a claim and answers follow-ups as usual. Over Chainlit's socket protocol, because the
browser's composer never sends an empty message; every input goes through one server, two threads."""

from __future__ import annotations

import asyncio
import html
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from markdown_it import MarkdownIt

from tests.e2e.chat_client import ChatSession, login_cookie
from tests.e2e.conftest import PASSWORD, USER
from tests.e2e.server import ChatServer

TIMEOUT_S = 120.0
REFUSED = "I cannot check this"
NO_SENTENCE = "ask about sentence 1 to"
# (id, text, what the refusal says)
BAD = [
    ("empty", "", "the claim is empty"),
    ("whitespace", " \n\t  ", "the claim is empty"),
    ("nul", "vaccines \x00 autism", "binary control characters"),
    ("binary", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x7f\x1b[31m", "binary control characters"),
    ("chars_2001", "vitamin D " * 201, "the limit is 2000"),
    ("paste_1mb", "Vitamin D reduces fractures. " * 34_500, "the limit is 2000"),
    ("zero_width_only", "\u200b\u200c\u200d\ufeff", "the claim is empty"),
    ("emoji_only", "🧪💉🤔", "the claim has no words"),
    ("url_only", "https://pubmed.ncbi.nlm.nih.gov/31234567/", "a link alone cannot be checked"),
    ("doi_only", "https://doi.org/10.1056/NEJMoa2034577", "paste the claim itself"),
]
# Shown literally, never rendered or run: Markdown, HTML, a javascript: link, SQL and shell metacharacters.
HOSTILE = (
    "**MMR** <img src=x onerror=alert(1)> [vaccine](javascript:alert(1)) causes autism'; DROP TABLE steps; -- $(id)"
)
# The claim with invisible characters inside and a direction override in front: checked as CLAIM.
INVISIBLE = "\u202eThe MMR\u200b vaccine causes\u200d autism.\ufeff"
FOLLOW_UPS = [
    ("sentence_99", "what are the sources behind sentence 99?", "there is no sentence 99"),
    ("sentence_0", "sources of sentence 0", "there is no sentence 0"),
    ("sentence_minus_1", "sources of sentence -1", "there is no sentence -1"),
    ("sentence_abc", "sources of sentence abc", "“abc” is not a sentence number"),
]


class Chat(ChatSession):
    """A chat session that also keeps the steps' updates (the "Checked: ..." line of a check is one)."""

    def __init__(self, url: str, cookie: str) -> None:
        super().__init__(url, cookie)
        self.updates: list[str] = []
        self.sio.on("update_message", self._on_update)

    async def _on_update(self, step: dict[str, Any]) -> None:
        self.updates.append(str(step.get("output") or ""))


async def delete_thread(url: str, cookie: str, thread_id: str) -> None:
    """Remove a thread from the shared server's list, so that the tests after these see the list they expect."""
    async with httpx.AsyncClient(base_url=url, timeout=30, headers={"Cookie": cookie}) as client:
        response = await client.request("DELETE", "/project/thread", json={"threadId": thread_id})
        response.raise_for_status()


async def first_thread(url: str, cookie: str) -> dict[str, Any]:
    """A follow-up before any claim, every refusal, a bad settings value, then a claim and bad follow-ups."""
    out: dict[str, Any] = {}
    async with Chat(url, cookie) as chat:
        out["early"] = await chat.send("what are the sources behind sentence 2?", "no answer in this thread", TIMEOUT_S)
        out["refusals"] = [await chat.send(text, REFUSED, TIMEOUT_S) for _, text, _ in BAD]
        await chat.sio.emit("chat_settings_change", {"sources": ["frobnicate", 7]})
        out["answer"] = await chat.send(INVISIBLE, "Verdict:", TIMEOUT_S * 3)
        out["checked"] = [u for u in chat.updates if u.startswith("Checked")]
        out["follow_ups"] = [await chat.send(text, NO_SENTENCE, TIMEOUT_S) for _, text, _ in FOLLOW_UPS]
        out["empty_follow_up"] = await chat.send("", REFUSED, TIMEOUT_S)
        out["sources"] = await chat.send("what are the sources behind sentence 1?", "It cites", TIMEOUT_S)
        out["why"] = await chat.send("Why is the verdict what it is?", "How the verdict was reached", TIMEOUT_S)
        out["errors"] = chat.errors
        out["thread_id"] = chat.thread_id
    return out


async def hostile_thread(url: str, cookie: str) -> dict[str, Any]:
    async with Chat(url, cookie) as chat:
        answer = await chat.send(HOSTILE, "Verdict:", TIMEOUT_S * 3)
    return {"answer": answer, "shown": chat.outputs + chat.updates, "errors": chat.errors, "thread_id": chat.thread_id}


@pytest.fixture(scope="module")
def chat_run(server: ChatServer) -> dict[str, Any]:
    async def both() -> dict[str, Any]:
        cookie = await login_cookie(server.url, USER, PASSWORD)
        run = {"first": await first_thread(server.url, cookie), "hostile": await hostile_thread(server.url, cookie)}
        run["stored"] = stored_user_messages(Path(server.env["DATA_DIR"]), run["first"]["thread_id"], kept_pastes)
        for thread in (run["first"], run["hostile"]):
            await delete_thread(server.url, cookie, thread["thread_id"])
        return run

    return asyncio.run(both())


def kept_pastes(stored: list[str]) -> bool:
    """Whether the stored user messages hold the two long ones the tests below read: the refused paste (as whatever
    the store made of it) and the text of 2001 characters."""
    paste = next(text for name, text, _ in BAD if name == "paste_1mb")
    return any(m.startswith(paste[:100]) for m in stored) and "vitamin D " * 201 in stored


def stored_user_messages(
    data_dir: Path, thread_id: str, holds: Callable[[list[str]], bool], wait_s: float = 30.0
) -> list[str]:
    """The user messages of a thread as the chat's thread list keeps them, once they are what ``holds`` waits for
    (Chainlit writes a message's step in a background task, which may end after the socket's reply), or as they are
    after ``wait_s``."""
    query = """SELECT output FROM steps WHERE "threadId" = ? AND type = 'user_message'"""
    deadline = time.monotonic() + wait_s
    while True:
        conn = sqlite3.connect(data_dir / "chainlit" / "chainlit.sqlite")
        try:
            now = [str(row[0]) for row in conn.execute(query, (thread_id,))]
        finally:
            conn.close()
        if holds(now) or time.monotonic() > deadline:
            return now
        time.sleep(0.2)


@pytest.mark.parametrize("case", [pytest.param(case, id=case[0]) for case in BAD])
def test_bad_input_gets_a_clear_message_and_the_thread_stays_usable(chat_run: dict[str, Any], case: tuple):
    first = chat_run["first"]
    reply = first["refusals"][BAD.index(case)]
    assert case[2] in reply and "Send another claim or question" in reply
    assert "Traceback" not in reply and len(reply) < 300
    assert "Sources" in first["answer"] and not first["errors"]  # the same thread then checks a claim


def test_a_refused_paste_is_stored_as_its_start_and_length(chat_run: dict[str, Any]):
    paste = next(text for name, text, _ in BAD if name == "paste_1mb")
    (stored,) = [m for m in chat_run["stored"] if m.startswith(paste[:100])]
    # beyond four times the longest text the chat reads (a passage, MAX_PASSAGE_CHARS), as much as a passage
    assert stored == paste[:12000] + f"… ({len(paste)} characters; only the first 12000 kept)"
    assert "vitamin D " * 201 in chat_run["stored"]  # under four times the limit: kept whole


def test_follow_up_before_any_claim(chat_run: dict[str, Any]):
    early = chat_run["first"]["early"].replace("\\", "")
    assert "send a claim to check first" in early and "Traceback" not in early


def test_invisible_characters_are_dropped_from_the_claim(chat_run: dict[str, Any]):
    (checked,) = chat_run["first"]["checked"]
    assert "MMR vaccine causes autism" in checked.replace("\\", "")
    assert not any(ch in checked for ch in "\u202e\u200b\u200d\ufeff")


def test_bad_settings_value_from_the_chat_keeps_the_configured_sources(chat_run: dict[str, Any]):
    answer = chat_run["first"]["answer"]
    assert "Sources" in answer and "frobnicate" not in answer and not chat_run["first"]["errors"]


@pytest.mark.parametrize("case", [pytest.param(case, id=case[0]) for case in FOLLOW_UPS])
def test_bad_follow_up_names_the_sentences_there_are(chat_run: dict[str, Any], case: tuple):
    reply = chat_run["first"]["follow_ups"][FOLLOW_UPS.index(case)].replace("\\", "")
    assert case[2] in reply and NO_SENTENCE in reply and "Traceback" not in reply


def test_bad_follow_up_loses_nothing(chat_run: dict[str, Any]):
    first = chat_run["first"]
    assert "the claim is empty" in first["empty_follow_up"]
    assert "**Sentence 1:**" in first["sources"] and "Source 1" in first["sources"]  # the answer is still held


def test_why_shows_the_reckoning_of_the_verdict(chat_run: dict[str, Any]):
    why = chat_run["first"]["why"].replace("\\", "")
    assert "How the verdict was reached" in why and "Confidence" in why and "threshold" in why
    assert "Weighted grade" in why or "No paper counts" in why


def test_markdown_html_sql_and_shell_in_a_claim_are_literal_text(chat_run: dict[str, Any]):
    hostile = chat_run["hostile"]
    assert "**Verdict:**" in hostile["answer"] and not hostile["errors"]  # checked like any claim
    checked = [s for s in hostile["shown"] if s.startswith("Checked")]
    assert checked
    for shown in checked:  # rendered as the chat renders Markdown: no element, only the text as typed
        rendered = MarkdownIt("commonmark").render(shown)
        assert not re.search(r"<(?!/?p>)", rendered), rendered
        assert html.unescape(rendered).strip() == f"<p>Checked: {HOSTILE}</p>"
