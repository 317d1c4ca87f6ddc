"""The side panel, opened only by the buttons under a message: "Source n" opens that check's paper [n] (each of its
evidence sentences within its neighbours), "Uncounted paper k" the k-th paper it read and did not count (why, and its
text as the index holds it), "Original answer" the answer as first written and what self-correction changed, "The
checked English" a translated answer's sentences as written and checked. Nothing else points the panel, so it shows
what the user opened last until the user opens or closes it.

Chainlit's client sets the panel itself whenever the display="side" elements it holds change (to all of them, under
the newest one's name), and closes it whenever an element arrives while it holds none. So no message carries a side
element, and each opening sends the thread's one side element, under the same id each time, with the title and text
to show: the client replaces the one it holds and opens the panel on it, and neither a later answer's chart nor an
export's files (which leave that element as it is) open, close or re-point the panel. ``cl.ElementSidebar`` is not
used: it sends its elements before it sets the panel, and the client, seeing elements arrive while it holds no side
element, may close the panel it has just set."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import chainlit as cl
from pydantic import ValidationError

from agent.settings.app import get_settings
from agent.state import Correction
from tools.index.live_docs import with_removal_marks
from tools.text.i18n import speaking, t
from ui.chat.render import (
    ENGLISH_ANSWER,
    ORIGINAL,
    open_name,
    original_detail,
    paper_detail,
    sentence_line,
    silent_name,
)
from ui.chat.runtime import chat_runtime, thread_values
from ui.chat.session_files import mark_current_session
from ui.chat.uncounted import silent_detail
from ui.shared.papers import by_paper

if TYPE_CHECKING:
    from tools.corpus import Abstract

OPEN_SOURCE = "open_source"  # payload {"result": index of the check in the thread, "paper": n}
OPEN_SILENT = "open_silent"  # payload {"result": index of the check in the thread, "silent": k, 1-based}
OPEN_ORIGINAL = "open_original"  # payload {"result": index}, or a follow-up's {"original_answer", "corrections"}
OPEN_ENGLISH = "open_english"  # payload {"result": index}
TITLE_CHARS = 90  # the longest claim a panel's title quotes whole
GONE = "⚠️ That check is no longer in this thread."


def quoted(claim: str) -> str:
    return f"“{claim if len(claim) <= TITLE_CHARS else claim[: TITLE_CHARS - 1] + '…'}”"


def source_title(result: dict[str, Any], n: int) -> str:
    return t("{name} of {claim}", name=open_name(n), claim=quoted(result["claim"]))


def source_actions(sources: list[dict[str, Any]], index: int) -> list[cl.Action]:
    """A "Source n" button per paper of ``sources`` (evidence of the thread's check number ``index``)."""
    return [
        cl.Action(name=OPEN_SOURCE, label=open_name(paper[0]["n"]), payload={"result": index, "paper": paper[0]["n"]},
                  tooltip=t("Open this paper's evidence, within its abstract, in the side panel"))
        for paper in by_paper(sources)
    ]


def silent_actions(result: dict[str, Any], index: int) -> list[cl.Action]:
    """An "Uncounted paper k" button per paper the thread's check number ``index`` read and did not count."""
    return [
        cl.Action(name=OPEN_SILENT, label=silent_name(k), payload={"result": index, "silent": k},
                  tooltip=t("Open this paper, and why it does not count, in the side panel"))
        for k in range(1, len(result.get("silent") or []) + 1)
    ]


def original_actions(result: dict[str, Any], index: int) -> list[cl.Action]:
    """The "Original answer" button of a self-corrected check's answer; none when nothing was corrected."""
    if not result.get("corrections"):
        return []
    return [cl.Action(name=OPEN_ORIGINAL, label=t(ORIGINAL), payload={"result": index},
                      tooltip=t("The answer as first written, and what self-correction changed"))]


def english_actions(result: dict[str, Any], index: int) -> list[cl.Action]:
    """The "The checked English" button of an answer shown in translation; none when no sentence was translated."""
    if not any(s.get("translation") for s in result["sentences"]):
        return []
    return [cl.Action(name=OPEN_ENGLISH, label=t(ENGLISH_ANSWER), payload={"result": index},
                      tooltip=t("The answer's sentences as written and checked, in English"))]


def english_detail(result: dict[str, Any]) -> str:
    """What opens for a translated answer: its sentences as written and checked, with their flags, all in English."""
    with speaking("en"):
        return "\n".join(sentence_line(i, {**s, "translation": ""}) for i, s in enumerate(result["sentences"], 1))


def followup_original_actions(reply: dict[str, Any]) -> list[cl.Action]:
    """A self-corrected follow-up's "Original answer" button. The thread keeps only its latest reply, so the button
    carries what the panel shows; the panel escapes it as it escapes a stored answer."""
    if not reply.get("corrections"):
        return []
    payload = {"original_answer": reply.get("original_answer") or "", "corrections": reply["corrections"]}
    return [cl.Action(name=OPEN_ORIGINAL, label=t(ORIGINAL), payload=payload,
                      tooltip=t("The follow-up's answer as first written, and what self-correction changed"))]


def panel_id(thread: str) -> str:
    """The id of the thread's one side element."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"claimtrace:side-panel:{thread}"))


async def show(title: str, content: str) -> None:
    """Open the side panel on one text under ``title`` (the module's docstring says how)."""
    mark_current_session()  # Chainlit writes the text into the session's files folder
    panel = cl.Text(id=panel_id(str(cl.context.session.thread_id)), name=title, content=content, display="side")
    await panel.send(for_id="", persist=False)


async def _result(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The thread's check the button names, if the thread holds it."""
    index = payload.get("result")
    results = (await thread_values(str(cl.context.session.thread_id))).get("results", [])
    return results[index] if isinstance(index, int) and 0 <= index < len(results) else None


def source_panel(result: dict[str, Any] | None, n: Any) -> tuple[str, str] | None:
    """The panel's title and text for paper [n] of a thread's check, as shown now: a paper that has left the index
    since the check is marked with the day it left; None when the check holds no paper n."""
    paper = [s for s in result["sources"] if s["n"] == n] if result else []
    if result is None or not paper:
        return None
    settings = get_settings()
    paper = with_removal_marks(paper, settings.stores.index_dir)
    return source_title(result, paper[0]["n"]), paper_detail(paper, settings.judge.context_window)


@cl.action_callback(OPEN_SOURCE)
async def on_open_source(action: cl.Action) -> None:
    if (shown := source_panel(await _result(action.payload), action.payload.get("paper"))) is None:
        await cl.Message(content=t(GONE)).send()
        return
    await show(*shown)


async def indexed_doc(doc_id: str) -> Abstract | None:
    """The index's text of a document; None when the index no longer holds it."""
    return (await chat_runtime()).deps.index.docs.get(doc_id)


async def silent_panel(result: dict[str, Any] | None, k: Any) -> tuple[str, str] | None:
    """The panel's title and text for the ``k``-th paper a thread's check read and did not count (1-based), as shown
    now: a paper that has left the index since the check is marked with the day it left; None when the check holds
    no such paper."""
    silent = (result.get("silent") or []) if result else []
    if result is None or not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= len(silent):
        return None
    (paper,) = with_removal_marks([silent[k - 1]], get_settings().stores.index_dir)
    doc = None if paper.get("removed") else await indexed_doc(paper["doc_id"])
    return t("{name} of {claim}", name=silent_name(k), claim=quoted(result["claim"])), silent_detail(k, paper, doc)


@cl.action_callback(OPEN_SILENT)
async def on_open_silent(action: cl.Action) -> None:
    if (shown := await silent_panel(await _result(action.payload), action.payload.get("silent"))) is None:
        await cl.Message(content=t(GONE)).send()
        return
    await show(*shown)


@cl.action_callback(OPEN_ORIGINAL)
async def on_open_original(action: cl.Action) -> None:
    if "corrections" in action.payload:  # a follow-up's, read back as the corrections it must be
        try:
            corrections = [Correction.model_validate(c).model_dump(mode="json") for c in action.payload["corrections"]]
        except (ValidationError, TypeError):
            await cl.Message(content=t(GONE)).send()
            return
        shown = {"original_answer": str(action.payload.get("original_answer") or ""), "corrections": corrections}
        await show(t("{name} of the follow-up", name=t(ORIGINAL)), original_detail(shown))
        return
    if (result := await _result(action.payload)) is None:
        await cl.Message(content=t(GONE)).send()
        return
    await show(t("{name} to {claim}", name=t(ORIGINAL), claim=quoted(result["claim"])), original_detail(result))


@cl.action_callback(OPEN_ENGLISH)
async def on_open_english(action: cl.Action) -> None:
    if (result := await _result(action.payload)) is None:
        await cl.Message(content=t(GONE)).send()
        return
    await show(t("{name} to {claim}", name=t(ENGLISH_ANSWER), claim=quoted(result["claim"])), english_detail(result))
