"""The generated context of each paper, in headless Chromium against a real `claimtrace ui` server of its own whose
scripted LLM takes its time over each context: the verdict and the answer are on screen while the contexts are still
being written, each context then appears in the answer's sources, labelled as generated, and the side panel of a
source shows it, or says why its paper has none (a context its abstract does not support is dropped). The context is
checked by the real sentence verifier: the one kept is a sentence of its own abstract, word for word."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import CONTEXT_RULE
from tests.e2e.conftest import SCRIPT, chat_environment
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, WRITING_CONTEXTS, answer_text, log_in, opens, send
from ui.shared.supplement import GENERATED, NONE

CLAIM = "The MMR vaccine causes autism."
SLOW_CONTEXT_S = 4  # per paper: long enough to see the answer while the contexts are written
KEPT = CONTEXT_RULE["reply"]  # a sentence of the Danish cohort's abstract


@pytest.fixture(scope="module")
def slow_context_chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatServer]:
    rules = [{**r, "delay_s": SLOW_CONTEXT_S} if r is CONTEXT_RULE else r for r in SCRIPT]
    data = tmp_path_factory.mktemp("context_chat")
    srv = ChatServer(chat_environment(data, rules), data / "server.log").start()
    yield srv
    srv.stop()


def test_the_answer_comes_first_and_each_paper_gets_its_context(browser: Any, slow_context_chat: ChatServer):
    page = browser.new_page(viewport={"width": 1280, "height": 2000})
    log_in(page, slow_context_chat.url)
    send(page, CLAIM)
    # the answer is there while the LLM still writes the contexts: no context shown yet
    writing = page.locator(".message-content").filter(has_text=WRITING_CONTEXTS).last
    writing.wait_for(timeout=ANSWER_TIMEOUT_MS)
    shown = answer_text(page)
    assert "Answer" in shown and "Sources" in shown and GENERATED not in shown
    # then each context comes into the sources, and the writing line goes
    answer = page.locator(".message-content").filter(has_text="Verdict:").last
    expect(answer).to_contain_text(GENERATED, timeout=60_000)
    expect(answer).not_to_contain_text(WRITING_CONTEXTS, timeout=60_000)
    final = answer_text(page)
    assert KEPT in final
    # the side panel of the cohort's paper shows its context; a paper whose context was dropped says why. The
    # answer names each paper's button; Chainlit sends the buttons one by one after the answer's text, so all of
    # them are waited for before any is counted on
    papers = sorted({int(n) for n in re.findall(r"Source (\d+)", final)})
    assert papers == list(range(1, len(papers) + 1)) and papers, final
    message = answer.locator("xpath=..")
    expect(message.get_by_role("button", name=re.compile(r"^Source \d+$"))).to_have_count(len(papers), timeout=30_000)
    panel = page.locator("#side-view-content")
    texts = []
    for n in papers:
        # the panel's heading names the paper: the previous paper's panel also says "with its neighbours", so
        # waiting for that alone can read the panel before it has changed
        opens(page, f"Source {n}", f"[{n}]", scope=message)
        expect(panel).to_contain_text("of the abstract, with its neighbours")
        texts.append(panel.inner_text())
    assert any(GENERATED in t and KEPT in t for t in texts)  # the cohort's paper
    assert all(GENERATED in t or NONE in t for t in texts)  # every paper: its context, or why it has none
    if shot := os.environ.get("CLAIMTRACE_E2E_CONTEXT_SCREENSHOT"):  # the picture in docs/ui.md
        opens(page, "Source 1", "of the abstract, with its neighbours")
        page.screenshot(path=shot, full_page=True)
