"""The side panel follows the user (ui/chat/panel.py): no message carries a side element, so Chainlit's client never
opens the panel by itself; the buttons under a message open one paper or the original answer each; the session's
first opening sends the one side element the client holds, every later one sets the panel's title and elements."""

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
    """What the panel's Chainlit calls receive, in order: each element sent, each title and set of elements."""
    import chainlit as cl

    calls: list[tuple[str, Any]] = []

    async def send(element: Any, for_id: str, persist: bool = True) -> None:
        calls.append(("element", (element.name, element.display, element.content, for_id, persist)))

    async def title(text: str) -> None:
        calls.append(("title", text))

    async def elements(items: list[Any], key: str | None = None) -> None:
        calls.append(("elements", ([(e.name, e.display, e.content) for e in items], key)))

    async def said(message: Any) -> None:
        calls.append(("message", message.content))

    async def values(thread: str) -> dict[str, Any]:
        return {"results": [RESULT, CORRECTED]}

    monkeypatch.setattr(cl.Text, "send", send)
    monkeypatch.setattr(cl.ElementSidebar, "set_title", title)
    monkeypatch.setattr(cl.ElementSidebar, "set_elements", elements)
    monkeypatch.setattr(cl.Message, "send", said)
    monkeypatch.setattr("ui.chat.panel.thread_values", values)
    return calls


def test_the_first_opening_sends_the_one_side_element_and_later_ones_set_the_panel(
    opened: list[tuple[str, Any]],
) -> None:
    import chainlit as cl

    from ui.chat.panel import OPEN_ORIGINAL, OPEN_SOURCE, on_open_original, on_open_source

    async def clicks() -> None:
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 0, "paper": 2}))
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 0, "paper": 1}))
        await on_open_original(cl.Action(name=OPEN_ORIGINAL, payload={"result": 1}))

    in_chat(clicks)
    (kind, (name, display, content, for_id, persist)), *later = opened
    assert (kind, name, display, for_id, persist) == ("element", "Source 2 of “X causes Y.”", "side", "", False)
    assert "Evidence sentence 2" in content and "Evidence sentence 1" not in content
    assert [k for k, _ in later] == ["title", "elements", "title", "elements"]  # the title first: see show()
    assert later[0][1] == "Source 1 of “X causes Y.”"
    (shown, key) = later[1][1]
    assert [d for _, d, _ in shown] == ["inline"] and "Evidence sentence 1" in shown[0][2] and key == "source-0-1"
    assert later[2][1] == "Original answer to “X causes Y.”"
    assert "The answer as first written" in later[3][1][0][0][2]


def test_a_session_that_reopens_the_thread_sends_the_side_element_again(opened: list[tuple[str, Any]]) -> None:
    """Chainlit stores the user session with the thread and gives it to the session that reopens the thread (a new
    page, whose client holds no element): that session's first opening must send the side element again."""
    import chainlit as cl
    from chainlit.context import init_http_context
    from chainlit.user_session import user_sessions

    from ui.chat.panel import OPEN_SOURCE, on_open_source

    async def two_sessions() -> None:
        init_http_context()
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 0, "paper": 1}))
        kept = dict(user_sessions.get(cl.context.session.id) or {})
        init_http_context()
        user_sessions[cl.context.session.id] = kept  # as Chainlit's resume_thread does
        await on_open_source(cl.Action(name=OPEN_SOURCE, payload={"result": 0, "paper": 1}))

    asyncio.run(two_sessions())
    assert [(kind, call[1]) for kind, call in opened] == [("element", "side"), ("element", "side")]


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
    [(kind, (name, display, content, _, _))] = opened
    assert (kind, name, display) == ("element", "Original answer of the follow-up", "side")
    assert "First \\<b\\>draft" in content  # the text the button carries is escaped as a stored answer is
