"""A reopened thread made whole again: Chainlit restores only the messages' text (it stores no element:
ui.chat.elements), so the answers get their source panels, "Original answer" panel, sentence buttons and consensus
chart back and passage tables their buttons, and the thread says so when the
server's stop interrupted its check or left its last message waiting (ui.chat.interrupted)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import chainlit as cl
from chainlit.types import ThreadDict

from ui.chat.interrupted import (
    interrupted_claim,
    interrupted_notice,
    unanswered,
    waiting_notice,
)
from ui.chat.passage import PASSAGE_TAG, passage_actions
from ui.chat.runtime import chat_runtime, thread_values
from ui.chat.views import (
    ANSWER_TAG,
    answer_elements,
    sentence_actions,
)

RESUME_DELAY_S = 1.0  # let the client draw the resumed thread before buttons and panels are re-attached
# ...and the same buttons and panels once more after this, for a client that drew the thread later (a busy machine)
# and lost them: a panel sent again replaces itself, a button is removed before it is sent again
RESUME_AGAIN_S = 3.0


def _metadata(step: dict[str, Any]) -> dict[str, Any]:
    raw = step.get("metadata") or {}
    return json.loads(raw) if isinstance(raw, str) else dict(raw)


async def reattach(thread: ThreadDict) -> None:
    """Give the restored answers their source panels and buttons back, and passage tables their buttons (Chainlit
    restores only their text), and say so under them when the thread's last check was interrupted."""
    await asyncio.sleep(RESUME_DELAY_S)
    claim = await interrupted_claim((await chat_runtime()).graph, thread["id"])
    if claim is not None:
        await interrupted_notice(claim).send()
    elif (waiting := unanswered(thread["id"], thread["steps"])) is not None:
        await waiting_notice(waiting).send()
    values = await thread_values(thread["id"])
    restored = await restore_views(thread, values)
    await asyncio.sleep(RESUME_AGAIN_S)
    for msg in restored:  # the same buttons and panels again: one the client holds is replaced, not doubled
        for action in msg.actions:
            await action.remove()
            await action.send(for_id=msg.id)
        for element in msg.elements:
            await element.send(for_id=msg.id)


async def restore_views(thread: ThreadDict, values: dict[str, Any]) -> list[cl.Message]:
    """The buttons, source panels and charts of the thread's restored answers and passage tables; returns the
    messages it updated."""
    results, passages = values.get("results", []), values.get("passages", [])
    restored = []
    for step in thread["steps"]:
        shown = _metadata(dict(step)).get(PASSAGE_TAG)
        if isinstance(shown, int) and 0 <= shown < len(passages):
            table = cl.Message(id=step["id"], content=step.get("output") or "", created_at=step.get("createdAt"),
                               metadata={PASSAGE_TAG: shown}, actions=passage_actions(passages[shown], shown))
            await table.update()
            restored.append(table)
        index = _metadata(dict(step)).get(ANSWER_TAG)
        if not isinstance(index, int) or not 0 <= index < len(results):
            continue
        msg = cl.Message(id=step["id"], content=step.get("output") or "", created_at=step.get("createdAt"),
                         metadata={ANSWER_TAG: index}, actions=sentence_actions(results[index], index),
                         elements=answer_elements(results[index]))
        await msg.update()
        restored.append(msg)
    return restored
