"""The consensus view and the source badges in a real browser (the shared server, Debian's Chromium): the answer
carries the consensus line and a Plotly chart of two stacked bars (weighted and unweighted) drawn by the plotly.js
that Chainlit's frontend bundles, the study-design badges stand beside the sources, and no request of the page
leaves loopback (no CDN, no font or map service), nor when the thread is reopened and the chart comes back."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import answer_text, log_in, send

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
CHART = ".inline-plotly-container"
# each bar segment of the chart: [its top, rounded; its width]
BARS = """el => [...el.querySelectorAll('.barlayer .point path')].map(p => {
              const b = p.getBBox(); return [Math.round(b.y), b.width]; })"""
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # the chat escapes ASCII punctuation in shown text


def unescape(text: str) -> str:
    return ESCAPED.sub(r"\1", text)


def leaves_loopback(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return False
    return parts.hostname not in LOOPBACK


def test_consensus_chart_and_badges_render_offline(browser: Any, server: ChatServer, tmp_path: Path):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    context.on("websocket", lambda ws: requests.append(ws.url))
    page = context.new_page()
    log_in(page, server.url)
    send(page, CLAIM)
    text = unescape(answer_text(page))

    # the text version, under the verdict: over the 3 abstracts read for the claim (tests/e2e/conftest.py SCRIPT)
    line = re.search(r"Consensus over (\d+) papers: (\d+) support, (\d+) contradicts?, (\d+) no evidence "
                     r"\(weighted (\d+)% / (\d+)% / (\d+)%\)", text)
    assert line, text
    sources, *counts = map(int, line.groups()[:4])
    assert sources == sum(counts) >= 2 and sum(map(int, line.groups()[4:])) == 100

    # the chart: one plotly svg, three traces (support, contradict, no evidence) over two bars. plotly.js draws its
    # frame first and the traces, axes, title and legend after it: each is waited for, not read at the frame's sight
    chart = page.locator(CHART).last
    chart.locator("svg.main-svg").first.wait_for(timeout=60_000)
    expect(chart.locator(".barlayer .trace")).to_have_count(3, timeout=30_000)
    expect(chart.locator(".ytick text")).to_have_count(2, timeout=30_000)
    assert sorted(chart.locator(".ytick text").all_text_contents()) == ["unweighted", "weighted"]
    expect(chart.locator(".gtitle")).to_have_text(f"Consensus over {sources} papers", timeout=30_000)
    expect(chart.locator(".legendtext")).to_have_text(
        [f"support ({counts[0]})", f"contradict ({counts[1]})", f"no evidence ({counts[2]})"], timeout=30_000
    )
    # the bars drawn: two rows of segments of non-zero width (on a timeout, the assertion below says what was drawn)
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(f"el => new Set(({BARS})(el).filter(([, w]) => w > 0).map(([y]) => y)).size === 2",
                               arg=chart.element_handle(), timeout=30_000)
    widths = chart.evaluate(BARS)
    rows = {y for y, width in widths if width > 0}
    assert len(rows) == 2, widths  # two bars, each made of the segments of the sides that have sources

    # the badges, beside the sources they describe: a design chip in each source's line (the tiny corpus: a cohort
    # study and a meta-analysis)
    answer = page.locator(".message-content").filter(has_text="Verdict:").last
    chips = answer.evaluate(
        """el => [...el.querySelectorAll('li')].filter(li => /^\\[\\d+\\]/.test(li.innerText.trim()))
              .map(li => [...li.querySelectorAll('code')].map(c => c.innerText))"""
    )
    assert len(chips) >= 2 and all(len(c) == 1 for c in chips), chips
    assert {c[0] for c in chips} == {"cohort study", "meta-analysis / systematic review"}, (chips, text)
    assert answer.locator("li code", has_text="cohort study").first.is_visible()

    page.wait_for_timeout(500)  # plotly's resize settles
    shot = Path(os.environ.get("CLAIMTRACE_E2E_CONSENSUS_SCREENSHOT", tmp_path / "consensus_view.png"))
    answer.locator("xpath=../..").screenshot(path=str(shot))  # the answer with its chart and buttons
    assert shot.stat().st_size > 0

    # a reopened thread gets its chart back (Chainlit restores only the text of a message)
    page.wait_for_url("**/thread/**", timeout=60_000)
    page.goto(page.url)
    page.locator(CHART).last.locator(".barlayer .trace").nth(2).wait_for(timeout=60_000)

    assert requests and not [u for u in requests if leaves_loopback(u)], requests
    context.close()
