"""Bad input in the chat follows the CLI rules (agent.service.validate_claim): one clear message in the chat, and the
same thread then checks a claim as usual. Over Chainlit's socket protocol, because the browser's composer never
sends an empty message; the browser test sends the other kinds through the page."""

from __future__ import annotations

import asyncio

from tests.e2e.chat_client import ChatSession, login_cookie
from tests.e2e.conftest import CLAIM, PASSWORD, USER
from tests.e2e.server import ChatServer

TIMEOUT_S = 120.0
REFUSED = "I cannot check this"
BAD = [
    ("", "the claim is empty"),
    (" \n\t  ", "the claim is empty"),
    ("vaccines \x00\x01 autism", "binary control characters"),
    ("vitamin D " * 201, "the limit is 2000"),
]


async def bad_then_good(url: str) -> tuple[list[str], str, list[str]]:
    cookie = await login_cookie(url, USER, PASSWORD)
    async with ChatSession(url, cookie) as chat:
        refusals = [await chat.send(text, REFUSED, TIMEOUT_S) for text, _ in BAD]
        answer = await chat.send(CLAIM, "Verdict:", TIMEOUT_S * 3)
        return refusals, answer, chat.errors


def test_bad_input_gets_a_clear_message_and_the_thread_stays_usable(server: ChatServer):
    refusals, answer, errors = asyncio.run(bad_then_good(server.url))
    for (_, reason), reply in zip(BAD, refusals, strict=True):
        assert reason in reply and "Send another claim or question" in reply
        assert "Traceback" not in reply
    assert "Sources" in answer and not errors  # the same thread then checks a claim
