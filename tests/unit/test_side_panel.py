"""The side panel follows the user (ui/chat/panel.py): no message carries a side element, so Chainlit's client never
opens the panel by itself; the buttons under a message open one paper or the original answer each, every opening
sending the thread's one side element, under the same id, so that the client holds one at most."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.unit.test_ui_render import RESULT, source

CORRECTION = {"position": 1, "original": "First.", "citations": [], "invalid_citations": [], "status": "uncited",
              "reason": "cites no source", "action": "dropped", "text": ""}  # fmt: skip
CORRECTED: dict[str, Any] = {**RESULT, "assessments": [], "silent": [], "original_answer": "First.",
                             "corrections": [CORRECTION]}  # fmt: skip


def in_chat(coro: Any) -> Any:
    from chainlit.context import init_http_context

    async def run() -> Any:
        init_http_context()
        return await coro()

    return asyncio.run(run())


def test_no_message_carries_a_side_element_and_each_source_has_its_button() -> None:
    from ui.chat import views

    async def messages() -> list[Any]:
        reply = {"kind": "sources", "sentence": 1, "text": "Studies found no link.", "citations": [2],
                 "status": "supported", "sources": [source(2)]}  # fmt: skip
        followup = {"sentences": [], "evidence_count": 2, "original_answer": "First.", "corrections": [CORRECTION]}
        return [views.answer_message(CORRECTED, 0, []), views.sources_message(reply, 0),
                views.followup_message(followup)]

    answer, sources, followup = in_chat(messages)
    assert [e.display for m in (answer, sources, followup) for e in m.elements if e.display == "side"] == []
    labels = [a.label for a in answer.actions]
    assert labels[:3] == ["Source 1", "Source 2", "Original answer"] and "Export" in labels
    assert [(a.label, a.payload) for a in sources.actions] == [("Source 2", {"result": 0, "paper": 2})]
    assert [a.label for a in followup.actions] == ["Original answer"]
    plain = in_chat(lambda: asyncio.sleep(0, views.answer_actions(RESULT, 3)))
    assert "Original answer" not in [a.label for a in plain]  # nothing was corrected
    assert {a.payload["result"] for a in plain if a.label.startswith("Source")} == {3}


def test_the_check_a_sentence_reply_is_about() -> None:
    from ui.chat.views import current_index

    assert current_index({}) is None
    assert current_index({"results": [{}, {}, {}]}) == 2
    assert current_index({"results": [{}, {}, {}], "focus": 0}) == 0
    assert current_index({"results": [{}, {}, {}], "focus": -2}) == 1
    assert current_index({"results": [{}, {}], "focus": 7}) == 1


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """What the panel's Chainlit calls receive, in order: each element sent, each title or set of elements given to
    cl.ElementSidebar, each message."""
    import chainlit as cl

    calls: list[tuple[str, Any]] = []

    async def send(element: Any, for_id: str, persist: bool = True) -> None:
        calls.append(("element", (element.name, element.display, element.content, for_id, persist, element.id)))

    async def sidebar(*args: Any, **kwargs: Any) -> None:
        calls.append(("sidebar", args))

    async def said(message: Any) -> None:
        calls.append(("message", message.content))

    async def values(thread: str) -> dict[str, Any]:
        return {"results": [RESULT, CORRECTED]}

    monkeypatch.setattr(cl.Text, "send", send)
    monkeypatch.setattr(cl.ElementSidebar, "set_title", sidebar)
    monkeypatch.setattr(cl.ElementSidebar, "set_elements", sidebar)
    monkeypatch.setattr(cl.Message, "send", said)
    monkeypatch.setattr("ui.chat.panel.thread_values", values)
    return calls


def test_each_opening_sends_the_threads_one_side_element(opened: list[tuple[str, Any]]) -> None:
    import chainlit as cl

    from ui.chat.panel import OPEN_ORIGINAL, OPEN_SOURCE, on_open_original, on_open_source, panel_id

    async def clicks() -> str:
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 0, "paper": 2}))
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 0, "paper": 1}))
        await on_open_original(cl.Action(name=OPEN_ORIGINAL, payload={"result": 1}))
        return str(cl.context.session.thread_id)

    thread = in_chat(clicks)
    assert [kind for kind, _ in opened] == ["element"] * 3  # no cl.ElementSidebar call: ui/chat/panel.py says why
    names, displays, contents, for_ids, persists, ids = zip(*(call for _, call in opened), strict=True)
    assert names == ("Source 2 of “X causes Y.”", "Source 1 of “X causes Y.”", "Original answer to “X causes Y.”")
    assert set(displays) == {"side"} and set(for_ids) == {""} and set(persists) == {False}
    assert set(ids) == {panel_id(thread)} and panel_id(thread) != panel_id(thread + "x")
    assert "Evidence sentence 2" in contents[0] and "Evidence sentence 1" not in contents[0]
    assert "Evidence sentence 1" in contents[1] and "The answer as first written" in contents[2]


def test_a_button_for_something_the_thread_does_not_hold_opens_nothing(opened: list[tuple[str, Any]]) -> None:
    import chainlit as cl

    from ui.chat.panel import GONE, OPEN_ORIGINAL, OPEN_SOURCE, on_open_original, on_open_source

    async def clicks() -> None:
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 5, "paper": 1}))
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 0, "paper": 9}))
        await on_open_original(cl.Action(name=OPEN_ORIGINAL, payload={"corrections": [{"position": "x"}]}))

    in_chat(clicks)
    assert [k for k, _ in opened] == ["message"] * 3 and {c for _, c in opened} == {GONE}


def test_a_follow_ups_original_answer_opens_from_its_button(opened: list[tuple[str, Any]]) -> None:
    from ui.chat.panel import on_open_original
    from ui.chat.views import followup_message

    async def click() -> None:
        reply = {"sentences": [], "evidence_count": 2, "original_answer": "First <b>draft</b>.",
                 "corrections": [CORRECTION]}  # fmt: skip
        await on_open_original(followup_message(reply).actions[0])

    in_chat(click)
    [(kind, (name, display, content, *_))] = opened
    assert (kind, name, display) == ("element", "Original answer of the follow-up", "side")
    assert "First \\<b\\>draft" in content  # the text the button carries is escaped as a stored answer is


SILENT = [
    {"doc_id": "9", "title": "Starch <b>after</b> bypass", "reputation": 0.4, "bearing": 0.3,
     "reputation_inputs": {"design": "cohort"},
     "reason": "Not counted, but close: the LLM cannot tell. Worth reading yourself.", "close": True},
    {"doc_id": "8", "title": "Old study", "reputation": 0.2, "reason": ""},
]  # fmt: skip


def test_every_paper_read_and_not_counted_has_its_button_and_feedback_says_what_it_does() -> None:
    from ui.chat import views

    actions = in_chat(lambda: asyncio.sleep(0, views.answer_actions({**RESULT, "silent": SILENT}, 4)))
    opens = [(a.name, a.label, a.payload) for a in actions if a.name == "open_silent"]
    assert opens == [("open_silent", "Uncounted paper 1", {"result": 4, "silent": 1}),
                     ("open_silent", "Uncounted paper 2", {"result": 4, "silent": 2})]  # fmt: skip
    assert not [a for a in in_chat(lambda: asyncio.sleep(0, views.answer_actions(RESULT, 4)))
                if a.name == "open_silent"]  # fmt: skip
    # a button under an answer sentence says what a click does: sentence 1 is shown as supported, 2 and 3 flagged
    feedback = [(a.label, a.payload["kind"]) for a in actions if a.name == "feedback"]
    assert feedback == [("Report sentence 1 as unsupported", "unsupported"),
                        ("Report the flag on sentence 2 as wrong", "flag_wrong"),
                        ("Report the flag on sentence 3 as wrong", "flag_wrong")]  # fmt: skip


def test_a_paper_read_and_not_counted_opens_with_why_and_its_text(
    opened: list[tuple[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import chainlit as cl

    from tools.corpus import Abstract
    from ui.chat.panel import GONE, OPEN_SILENT, on_open_silent
    from ui.shared.untrusted import md

    doc = Abstract(doc_id="9", title="Starch <b>after</b> bypass", year=2018, doi="10.1/s",
                   sentences=["We studied <i>starch</i>.", "Nothing changed."])  # fmt: skip

    async def values(thread: str) -> dict[str, Any]:
        return {"results": [{**RESULT, "silent": SILENT}]}

    async def indexed(doc_id: str) -> Abstract | None:
        return doc if doc_id == "9" else None

    monkeypatch.setattr("ui.chat.panel.thread_values", values)
    monkeypatch.setattr("ui.chat.panel.indexed_doc", indexed)

    async def clicks() -> None:
        for k in (1, 2, 3, "1", True):
            await on_open_silent(cl.Action(name=OPEN_SILENT, payload={"result": 0, "silent": k}))

    in_chat(clicks)
    assert [kind for kind, _ in opened] == ["element", "element", "message", "message", "message"]
    assert {content for kind, content in opened if kind == "message"} == {GONE}
    (first, display, text, *_), (second, _, gone, *_) = (call for kind, call in opened if kind == "element")
    assert (first, display) == ("Uncounted paper 1 of “X causes Y.”", "side")
    assert second == "Uncounted paper 2 of “X causes Y.”"
    assert "_Starch \\<b\\>after\\<\\/b\\> bypass_ (2018) · [link](https://doi.org/10.1/s) · `cohort study`" in text
    assert f"_Read, not counted:_ {md(SILENT[0]['reason'])}" in text
    assert "The abstract:\n\nWe studied \\<i\\>starch\\<\\/i\\>\\. Nothing changed\\." in text  # data, never HTML
    assert "The index no longer holds this paper's text" in gone and "Old study" in gone
