"""The chat's data layer stores no element and logs nothing for each one (ui/chat/elements.py); a reopened answer
gets every element it was sent with back from the check (ui/chat/resume.py)."""

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


def test_a_reopened_answer_gets_every_element_it_was_sent_with() -> None:
    from chainlit.context import init_http_context

    from ui.chat import resume, views
    from ui.chat.render import ORIGINAL

    corrected: dict[str, Any] = {
        **RESULT, "assessments": [], "silent": [], "original_answer": "First.",
        "corrections": [{"position": 1, "original": "First.", "citations": [], "invalid_citations": [],
                         "status": "uncited", "reason": "cites no source", "action": "dropped", "text": ""}],
    }  # fmt: skip

    async def names() -> tuple[list[str], list[str]]:
        init_http_context()
        sent = views.answer_message(corrected, 0, []).elements
        restored: list[Any] = []

        async def update(msg: Any) -> None:
            restored.extend(msg.elements)

        thread: Any = {"id": "t", "steps": [{"id": "m", "output": "", "metadata": {views.ANSWER_TAG: 0}}]}
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("chainlit.message.Message.update", update)
            await resume.restore_views(thread, {"results": [corrected]})
        return [e.name for e in sent], [e.name for e in restored]

    sent, restored = asyncio.run(names())
    assert ORIGINAL in sent and sorted(sent) == sorted(restored)
