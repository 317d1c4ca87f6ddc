"""A hostile live source in a real browser: a fake OpenAlex on loopback returns a work whose title, abstract and
venue carry a <script>, an <img> with an onerror handler pointing at a loopback "tracking" host, a javascript:
link and a Markdown image of that host; its landing page is a javascript: URL; the scripted LLM writes the same
things into its answer and its follow-up answer, and the user's claim carries them too. The chat (the real server,
Debian's Chromium) shows all of it as literal text: no script or img element comes from it, no javascript: link
exists, nothing ran, and the tracking host receives no request, from the page or from anywhere else."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CHOOSE_NOT, CONTEXT_RULE, STOP_SEARCHING, SURE_BEARS
from tests.e2e.conftest import CLAIM
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import answer_text, log_in, opens, send
from tests.live_fakes import FakeSource

SOURCE_ID = "https://openalex.org/S77"
JOINER = "\u2060"  # the chat puts one inside each bare URL so that it is not linked (ui/shared/untrusted.py)


def payloads(host: str) -> dict[str, str]:
    """What the source and the LLM carry; entities survive the source's tag stripping as literal < and >."""
    return {
        "script": "<script>window.__pwned = 'script'</script>",
        "img": f"<img src={host}/pixel.png onerror=window.__pwned='img'>",
        "js_link": "[click](javascript:alert(1))",
        "image": f"![]({host}/track.png)",
        "venue_img": f"<img src={host}/venue.png>",
        "answer_img": f"<img src={host}/answer.png onerror=window.__pwned='answer'>",
        "followup_img": f"<img src={host}/followup.png onerror=window.__pwned='followup'>",
        "claim_img": f"<img src={host}/claim.png onerror=window.__pwned='claim'>",
    }


def entities(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def openalex_work(p: dict[str, str]) -> dict[str, Any]:
    abstract = (
        "Background: Concerns persist that the measles-mumps-rubella (MMR) vaccine causes autism. "
        f"Results: MMR vaccination was not associated with an increased risk of autism {entities(p['img'])} "
        f"{p['js_link']} in 650,000 children. "
        "Conclusion: The study strongly supports that MMR vaccination does not increase the risk for autism "
        f"{entities(p['script'])} in children."
    )
    index: dict[str, list[int]] = {}
    for pos, word in enumerate(abstract.split()):
        index.setdefault(word, []).append(pos)
    return {
        "id": "https://openalex.org/W77",
        "title": f"MMR vaccination and autism {entities(p['script'])} {p['image']}",
        "publication_year": 2019,
        "ids": {"openalex": "https://openalex.org/W77"},
        "primary_location": {
            "landing_page_url": "javascript:alert(document.cookie)",
            "source": {"id": SOURCE_ID, "display_name": f"Journal {entities(p['venue_img'])} {p['js_link']}"},
        },
        "cited_by_count": 40,
        "is_retracted": False,
        "abstract_inverted_index": index,
    }


@pytest.fixture(scope="module")
def tracker() -> Iterator[FakeSource]:
    """The tracking host: answers nothing useful, records every request."""
    with FakeSource({}).running() as host:
        yield host


@pytest.fixture(scope="module")
def hostile_server(chat_env: dict[str, str], tracker: FakeSource, tmp_path_factory: pytest.TempPathFactory):
    p = payloads(tracker.url)
    works = json.dumps({"meta": {"count": 1}, "results": [openalex_work(p)]})
    sources = json.dumps({"results": [{"id": SOURCE_ID, "summary_stats": {"2yr_mean_citedness": 3.2}}]})
    data = tmp_path_factory.mktemp("hostile_data")
    shutil.copytree(Path(chat_env["DATA_DIR"]) / "index", data / "index")
    script = data / "script.json"
    # the LLM's sentence carries the planted markup and rules on the verdict: flagged, so its first wording is kept
    # and shown as text in the "Original answer" panel; its rewrite rules on the verdict again
    answer = f"1: The verdict is that MMR vaccination was not associated with autism {p['answer_img']} {p['js_link']}."
    # cites a source the thread does not hold: flagged and corrected whatever the verifier reads of [1]
    followup = f"{p['followup_img']} The cohort found no association with autism [9]."
    script.write_text(
        json.dumps(
            [
                {"when": "Follow-up from the user", "reply": json.dumps({"action": "answer", "answer": followup})},
                SURE_BEARS, CHOOSE_NOT, CONTEXT_RULE,
                {"when": "<draft>", "reply": "The verdict is that MMR vaccination is safe."},
                {"when": "<evidence>", "reply": answer},
                STOP_SEARCHING,
            ]
        )
    )
    with FakeSource({"/works": (200, works, {}), "/sources": (200, sources, {})}).running() as openalex:
        env = {**chat_env, "DATA_DIR": str(data), "LLM_SCRIPT": str(script), "SOURCES": "openalex",
               "OPENALEX_BASE_URL": openalex.url}  # fmt: skip
        srv = ChatServer(env, data / "server.log").start()
        try:
            yield srv, p, openalex
        finally:
            srv.stop()


def shown(locator: Any) -> str:
    """The text a reader sees in an element, without the invisible word joiners."""
    return str(locator.inner_text()).replace(JOINER, "")


def assert_inert(page: Any, host: str) -> None:
    """Nothing from the source or the LLM became markup: no element, no link, no handler that ran."""
    assert page.evaluate("window.__pwned") is None
    assert page.locator(f"img[src*='{host}'], video[src*='{host}']").count() == 0
    assert page.locator("script", has_text="__pwned").count() == 0
    assert page.locator("[onerror]").count() == 0
    assert page.locator("a[href^='javascript' i]").count() == 0
    assert page.locator(f"a[href*='{host}']").count() == 0


def test_hostile_title_abstract_venue_and_llm_text_show_as_text(browser: Any, hostile_server: Any, tracker: Any):
    server, p, openalex = hostile_server
    host = tracker.url
    page = browser.new_page(viewport={"width": 1280, "height": 2000})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    log_in(page, server.url)
    send(page, f"{CLAIM} {p['claim_img']} {p['image']}")  # the user's own message is shown as typed too
    text = answer_text(page).replace(JOINER, "")
    assert p["claim_img"] in shown(page.locator("body"))
    assert any(path == "/works" for path, _ in openalex.requests)  # the answer rests on the hostile source
    for key in ("script", "image", "img", "js_link", "venue_img"):  # title, abstract sentences, venue
        assert p[key] in text, key
    assert_inert(page, host)

    panel = page.locator("#side-view-content")
    opens(page, "Source 1", "with its neighbours")  # the abstract around the evidence, in the side panel
    panel_text = shown(panel)
    assert p["script"] in panel_text and p["img"] in panel_text
    opens(page, "Original answer", "The answer as first written")  # the LLM's answer as first written
    assert p["answer_img"] in shown(panel)

    send(page, "Which children were studied?")
    page.get_by_text("already in this thread").first.wait_for(timeout=60_000)
    # the follow-up's own sentence is flagged and replaced by a quote; its first wording opens in the side panel from
    # the "Original answer" button under the follow-up
    reply = page.locator(".message-content").filter(has_text="already in this thread").last
    opens(page, "Original answer", "The cohort found no association", scope=reply.locator("xpath=.."))
    assert p["followup_img"] in shown(panel)
    send(page, "what are the sources behind sentence 1?")
    page.get_by_text("It cites:").first.wait_for(timeout=60_000)
    assert p["img"] in shown(page.locator(".message-content").filter(has_text="It cites:").last)

    assert_inert(page, host)
    assert [u for u in requested if u.startswith(host)] == []
    assert tracker.requests == []
