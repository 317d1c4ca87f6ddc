"""A reopened thread made whole again: Chainlit restores only the messages' text (it stores no element:
ui.chat.elements), so the answers get their buttons ("Source n", "Original answer", each sentence's, Export) and
consensus chart back, "Sources of sentence n" replies and follow-up answers theirs, passage tables theirs, and the
notice of a rewritten follow-up or translated claim its "Check my words instead" until those words are checked (and
"Correct the English" for a translation); and the thread says so when the server's stop interrupted its check or left
its last message waiting (ui.chat.interrupted)."""

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
from ui.chat.notices import ENGLISH_TAG, OWN_WORDS, OWN_WORDS_TAG, rewrite_actions, still_offered
from ui.chat.passage import PASSAGE_TAG, passage_actions
from ui.chat.runtime import chat_runtime, thread_values
from ui.chat.speech import speak
from ui.chat.views import (
    ANSWER_TAG,
    answer_actions,
    answer_elements,
    restored_actions,
)

RESUME_DELAY_S = 1.0  # let the client draw the resumed thread before buttons and charts are re-attached
# ...and the same buttons and charts once more after this, for a client that drew the thread later (a busy machine)
# and lost them: a chart sent again replaces itself, a button is removed before it is sent again. Neither touches
# the side panel, which only a button opens (ui.chat.panel)
RESUME_AGAIN_S = 3.0


def _metadata(step: dict[str, Any]) -> dict[str, Any]:
    raw = step.get("metadata") or {}
    return json.loads(raw) if isinstance(raw, str) else dict(raw)


async def reattach(thread: ThreadDict) -> None:
    """Give the restored answers their buttons and charts back, and passage tables their buttons (Chainlit restores
    only their text), and say so under them when the thread's last check was interrupted."""
    await asyncio.sleep(RESUME_DELAY_S)
    claim = await interrupted_claim((await chat_runtime()).graph, thread["id"])
    if claim is not None:
        await interrupted_notice(claim).send()
    elif (waiting := unanswered(thread["id"], thread["steps"])) is not None:
        await waiting_notice(waiting).send()
    values = await thread_values(thread["id"])
    restored = await restore_views(thread, values)
    await asyncio.sleep(RESUME_AGAIN_S)
    for msg in restored:  # the same buttons and charts again: one the client holds is replaced, not doubled
        actions = msg.actions
        if isinstance(asked := (msg.metadata or {}).get(OWN_WORDS_TAG), str) and not still_offered(asked, []):
            actions = [a for a in actions if a.name != OWN_WORDS]  # the user pressed it meanwhile
        for action in actions:
            await action.remove()
            await action.send(for_id=msg.id)
        for element in msg.elements:
            await element.send(for_id=msg.id)


def _again(step: Any, metadata: dict[str, Any], actions: list[cl.Action], elements: Any = ()) -> cl.Message:
    """A restored message as it was sent: its text, metadata, buttons and elements."""
    return cl.Message(id=step["id"], content=step.get("output") or "", created_at=step.get("createdAt"),
                      metadata=metadata, actions=actions, elements=list(elements))


async def restore_views(thread: ThreadDict, values: dict[str, Any]) -> list[cl.Message]:
    """The buttons and charts of the thread's restored answers, replies, passage tables and rewrite offers; returns
    the messages it updated."""
    results, passages = values.get("results", []), values.get("passages", [])
    if results:  # the buttons speak the language of the thread's last check
        speak(str(results[-1].get("language") or "en"))
    restored = []
    for step in thread["steps"]:
        metadata = _metadata(dict(step))
        asked, shown, index = (metadata.get(tag) for tag in (OWN_WORDS_TAG, PASSAGE_TAG, ANSWER_TAG))
        if isinstance(asked, str):
            rewrite = {k: v for k, v in metadata.items() if k in (OWN_WORDS_TAG, ENGLISH_TAG)}
            if actions := rewrite_actions(rewrite, still_offered(asked, results)):
                restored.append(_again(step, rewrite, actions))
        if actions := restored_actions(metadata, results):  # a "Sources of sentence n" reply, a follow-up answer
            restored.append(_again(step, metadata, actions))
        if isinstance(shown, int) and 0 <= shown < len(passages):
            restored.append(_again(step, {PASSAGE_TAG: shown}, passage_actions(passages[shown], shown)))
        if isinstance(index, int) and 0 <= index < len(results):
            restored.append(_again(step, {ANSWER_TAG: index}, answer_actions(results[index], index),
                                   answer_elements(results[index])))
    for msg in restored:
        await msg.update()
    return restored
