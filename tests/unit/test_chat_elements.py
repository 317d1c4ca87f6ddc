"""The chat's data layer stores no element and logs nothing for each one (ui/chat/elements.py); a reopened answer
gets every element and button it was sent with back from the check, a sentence's sources and a follow-up answer
their buttons, and a rewritten follow-up its offer to check the user's own words (ui/chat/resume.py)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_ui_render import RESULT


def test_no_element_is_stored_and_nothing_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from chainlit.context import init_http_context
    from chainlit.element import Text

    from ui.chat.paste import PasteDataLayer

    async def store() -> Any:
        init_http_context()
        layer = PasteDataLayer(conninfo=f"sqlite+aiosqlite:///{tmp_path / 'chat.sqlite'}")
        return await layer.create_element(Text(name="Source 1", content="x", for_id="m1"))

    caplog.set_level(logging.INFO)
    assert asyncio.run(store()) is None
    assert not [r for r in caplog.records if "blob_storage" in r.getMessage() or "persisted" in r.getMessage()]


def test_a_reopened_answer_gets_every_element_and_button_it_was_sent_with() -> None:
    from chainlit.context import init_http_context

    from ui.chat import resume, views
    from ui.chat.render import ORIGINAL

    corrected: dict[str, Any] = {
        **RESULT, "assessments": [], "silent": [], "original_answer": "First.",
        "corrections": [{"position": 1, "original": "First.", "citations": [], "invalid_citations": [],
                         "status": "uncited", "reason": "cites no source", "action": "dropped", "text": ""}],
    }  # fmt: skip

    def shown(msg: Any) -> tuple[list[str], list[tuple[str, Any]]]:
        return [e.name for e in msg.elements], [(a.name, a.label, a.payload) for a in msg.actions]

    async def views_of() -> tuple[Any, Any]:
        init_http_context()
        sent = shown(views.answer_message(corrected, 0, []))
        restored: list[Any] = []

        async def update(msg: Any) -> None:
            restored.append(shown(msg))

        thread: Any = {"id": "t", "steps": [{"id": "m", "output": "", "metadata": {views.ANSWER_TAG: 0}}]}
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("chainlit.message.Message.update", update)
            await resume.restore_views(thread, {"results": [corrected]})
        return sent, restored

    sent, restored = asyncio.run(views_of())
    assert [label for _, label, _ in sent[1]][:3] == ["Source 1", "Source 2", ORIGINAL]
    assert restored == [sent]


def test_a_reopened_rewrite_offers_the_users_words_until_they_are_checked() -> None:
    from chainlit.context import init_http_context

    from ui.chat import resume
    from ui.chat.notices import OWN_WORDS, rewritten_notice, take_offer

    asked, rewritten = "what about twins?", "MMR vaccination and autism in twins"

    async def offers(results: list[dict[str, Any]], taken: bool = False) -> list[list[tuple[str, str, Any]]]:
        init_http_context()
        notice = rewritten_notice(asked, rewritten)
        thread: Any = {"id": "t", "steps": [{"id": "m", "output": notice.content, "metadata": notice.metadata}]}
        if taken:
            take_offer(asked)
        restored: list[Any] = []

        async def update(msg: Any) -> None:
            restored.append([(a.name, a.label, a.payload) for a in msg.actions])

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("chainlit.message.Message.update", update)
            await resume.restore_views(thread, {"results": results})
        return restored

    offer = [(OWN_WORDS, "Check my words instead", {"text": asked})]
    assert asyncio.run(offers([{"claim": rewritten}])) == [offer]
    assert asyncio.run(offers([{"claim": rewritten}, {"claim": asked}])) == []  # its words were checked
    assert asyncio.run(offers([{"claim": rewritten}], taken=True)) == []  # pressed, its check still running


def test_a_reopened_translation_offers_the_users_words_and_to_correct_the_english() -> None:
    """A claim checked in the LLM's English gets "Check my words instead" back until its words are checked, and
    "Correct the English" for good; the notice of the user's own English says it is theirs, not the LLM's."""
    from chainlit.context import init_http_context

    from ui.chat import resume
    from ui.chat.notices import CORRECT, OWN_WORDS, rewritten_notice

    asked, english = "Makrolide schützen vor Herzinfarkt.", "Macrolides protect against heart attacks."

    async def offers(results: list[dict[str, Any]]) -> list[list[tuple[str, Any]]]:
        init_http_context()
        notice = rewritten_notice(asked, english, "de")
        thread: Any = {"id": "t", "steps": [{"id": "m", "output": notice.content, "metadata": notice.metadata}]}
        restored: list[Any] = []

        async def update(msg: Any) -> None:
            restored.append([(a.name, a.payload) for a in msg.actions])

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("chainlit.message.Message.update", update)
            await resume.restore_views(thread, {"results": results})
        return restored

    correct = (CORRECT, {"text": asked, "english": english})
    assert asyncio.run(offers([{"claim": english}])) == [[(OWN_WORDS, {"text": asked}), correct]]
    assert asyncio.run(offers([{"claim": english}, {"claim": asked}])) == [[correct]]  # its words were checked

    async def notices() -> tuple[str, str]:
        init_http_context()
        return rewritten_notice(asked, english, "de").content, rewritten_notice(asked, english, "de", True).content

    llms, yours = asyncio.run(notices())
    assert "translated from German by the LLM" in llms and "by the LLM" not in yours and "as you wrote it" in yours


def test_a_reopened_sentence_reply_and_follow_up_get_their_buttons_back() -> None:
    from chainlit.context import init_http_context

    from tests.unit.test_ui_render import source
    from ui.chat import resume, views

    correction = {"position": 1, "original": "First.", "citations": [], "invalid_citations": [], "status": "uncited",
                  "reason": "cites no source", "action": "dropped", "text": ""}  # fmt: skip
    sources = {"kind": "sources", "sentence": 1, "text": "Studies found no link.", "citations": [2],
               "status": "supported", "sources": [source(2)]}  # fmt: skip
    followup = {"sentences": [], "evidence_count": 2, "original_answer": "First.", "corrections": [correction]}

    def buttons(msg: Any) -> list[tuple[str, str, Any]]:
        return [(a.name, a.label, a.payload) for a in msg.actions]

    async def both() -> tuple[list[Any], list[Any]]:
        init_http_context()
        sent = [views.sources_message(sources, 0), views.followup_message(followup)]
        thread: Any = {"id": "t", "steps": [{"id": f"m{i}", "output": m.content, "metadata": m.metadata}
                                            for i, m in enumerate(sent)]}  # fmt: skip
        restored: list[Any] = []

        async def update(msg: Any) -> None:
            restored.append(buttons(msg))

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("chainlit.message.Message.update", update)
            await resume.restore_views(thread, {"results": [RESULT]})
        return [buttons(m) for m in sent], restored

    sent, restored = asyncio.run(both())
    assert [[label for _, label, _ in b] for b in sent] == [["Source 2"], ["Original answer"]]
    assert restored == sent
