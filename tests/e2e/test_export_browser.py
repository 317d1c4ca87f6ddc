"""The Export button in the chat (headless Chromium, a real `claimtrace ui` server): under a finished check, a click
brings the check as four files; the page's links to them download the Markdown report (the claim and every source's
title), the JSON result, and BibTeX and RIS that parse."""

from __future__ import annotations

import json
from typing import Any

import bibtexparser
import rispy
from markdown_it import MarkdownIt
from playwright.sync_api import expect

from agent.result import CheckResult
from tests.e2e.conftest import CLAIM
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import answer_text, log_in, send
from ui.export.formats import FORMATS

EXPORTED = "Export of the check of"


def test_export_button_downloads_every_format(browser: Any, server: ChatServer):
    page = browser.new_page(viewport={"width": 1280, "height": 2000})
    log_in(page, server.url)
    send(page, CLAIM)
    answer_text(page)
    page.get_by_role("button", name="Export").last.click()
    message = page.locator(".message-content").filter(has_text=EXPORTED).last
    message.wait_for(timeout=60_000)
    step = page.locator("[data-step-type]").filter(has_text=EXPORTED).last
    links = step.locator("a[href*='/project/file/']")
    # Chainlit sends a message's files one by one after its text: wait for all four, not for the first of them
    expect(links).to_have_count(len(FORMATS), timeout=30_000)
    files: dict[str, str] = {}
    for i in range(links.count()):
        name = str(links.nth(i).get_attribute("download"))
        assert name.startswith("claimtrace-the-mmr-vaccine-causes-autism-"), name
        response = page.request.get(str(links.nth(i).get_attribute("href")))  # the page's session cookie
        fmt = name.rsplit(".", 1)[-1]
        assert response.ok and response.headers["content-type"].startswith(FORMATS[fmt][0]), (name, response.headers)
        files[fmt] = response.text()
    assert set(files) == {"md", "json", "bib", "ris"}, list(files)

    result = CheckResult.model_validate(json.loads(files["json"]))
    assert result.claim == CLAIM and result.sources
    shown = "".join(t.content for b in MarkdownIt().parse(files["md"]) for t in b.children or [] if t.type == "text")
    assert CLAIM in shown and all(s.title in shown for s in result.sources)
    bib = bibtexparser.parse_string(files["bib"])
    assert not bib.failed_blocks and len(bib.entries) == len({s.doc_id for s in result.sources})
    assert {r["title"] for r in rispy.loads(files["ris"])} == {s.title for s in result.sources}
