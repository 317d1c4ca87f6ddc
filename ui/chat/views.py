"""Chainlit messages for each kind of reply: Markdown from ui.chat.render, the consensus chart, and the buttons under
an answer (each source and the original answer in the side panel: ui.chat.panel; sources of a sentence, feedback,
export)."""

from __future__ import annotations

import json
from typing import Any

import chainlit as cl

from agent.settings.app import get_settings
from tools.index.live_docs import with_removal_marks
from tools.text.i18n import t
from ui.chat.consensus_view import consensus_figure
from ui.chat.export_chat import export_action  # importing it registers the Export callback with Chainlit
from ui.chat.panel import (
    english_actions,
    followup_original_actions,
    original_actions,
    silent_actions,
    source_actions,
)
from ui.chat.render import answer_markdown
from ui.chat.replies import followup_markdown, sentence_sources_markdown
from ui.chat.why_view import why_markdown
from ui.shared.consensus import charted, consensus_of

ANSWER_TAG = "claimtrace_answer"  # message metadata key: index of the thread result the message shows
# message metadata of a "Sources of sentence n" reply: {"result": index of the check, "papers": [n, ...]}
SOURCES_TAG = "claimtrace_sentence_sources"
FOLLOWUP_TAG = "claimtrace_followup"  # message metadata of a corrected follow-up: its original answer and corrections
CHART = "consensus chart"  # the name of the consensus figure under an answer (no word of the answer's text)
# a chart to read, not to edit: no mode bar (its buttons and the plotly.com logo link)
CHART_CONFIG = {"displayModeBar": False, "displaylogo": False}


FEEDBACK_TIPS = {
    "flag_wrong": "Tell claimtrace that this sentence is right although the verifier flagged it",
    "unsupported": "Tell claimtrace that its sources do not support this sentence although it is not flagged",
}


def feedback_choice(k: int, flagged: bool) -> tuple[str, str]:
    """The feedback kind a button under answer sentence ``k`` records, and its label, which says what a click does:
    a flagged sentence's flag is reported as wrong, another sentence as unsupported."""
    if flagged:
        return "flag_wrong", t("Report the flag on sentence {k} as wrong", k=k)
    return "unsupported", t("Report sentence {k} as unsupported", k=k)


def answer_actions(result: dict[str, Any], index: int) -> list[cl.Action]:
    """The buttons under an answer: each source, each paper read and not counted, the original answer and a
    translated answer's English (ui.chat.panel), each sentence's sources and feedback, then Export
    (ui.chat.export_chat)."""
    actions = [*source_actions(result["sources"], index), *silent_actions(result, index),
               *original_actions(result, index), *english_actions(result, index)]
    for k, s in enumerate(result["sentences"], start=1):
        actions.append(cl.Action(name="sentence_sources", label=t("Sources of sentence {k}", k=k),
                                 payload={"result": index, "sentence": k}))
        kind, label = feedback_choice(k, s["flagged"])
        actions.append(cl.Action(name="feedback", label=label, payload={"result": index, "sentence": k, "kind": kind},
                                 tooltip=t(FEEDBACK_TIPS[kind])))
    return [*actions, export_action(index)]


def consensus_chart(result: dict[str, Any]) -> list[cl.Plotly]:
    """The consensus figure shown under an answer, when at least two papers count; with fewer, the verdict's
    sentence says all the figure would."""
    c = consensus_of(result)
    if not charted(c):
        return []
    chart = cl.Plotly(name=CHART, figure=consensus_figure(c), display="inline")
    chart.content = json.dumps({**json.loads(chart.content), "config": CHART_CONFIG})  # Chainlit passes it to plotly
    return [chart]


def answer_elements(result: dict[str, Any]) -> list[cl.Plotly]:
    """What an answer carries besides its text and buttons: the consensus chart, when there is one; a reopened thread
    gets it back from the check (ui.chat.resume). No answer carries a side panel (ui.chat.panel says why)."""
    return consensus_chart(result)


def answer_content(result: dict[str, Any], notes: list[str]) -> str:
    """An answer's text: the check's, with the notes of the user's message first."""
    return answer_markdown({**result, "notes": notes + result.get("notes", [])})


def answer_message(result: dict[str, Any], index: int, notes: list[str]) -> cl.Message:
    return cl.Message(
        content=answer_content(result, notes),
        elements=answer_elements(result),
        actions=answer_actions(result, index),
        metadata={ANSWER_TAG: index},
    )


async def send_answer(result: dict[str, Any], index: int, notes: list[str]) -> None:
    """Show a check's answer; the side panel stays as the user left it."""
    await answer_message(result, index, notes).send()


def sources_message(reply: dict[str, Any], index: int | None) -> cl.Message:
    """The sources behind one sentence of the thread's check number ``index``, each with its "Source n" button (a
    reopened thread gets them back: ui.chat.resume); a paper removed from the index since the check says so."""
    if reply.get("sources"):
        reply = {**reply, "sources": with_removal_marks(reply["sources"], get_settings().stores.index_dir)}
    if index is None or not reply.get("sources"):
        return cl.Message(content=sentence_sources_markdown(reply))
    papers = sorted({s["n"] for s in reply["sources"]})
    return cl.Message(content=sentence_sources_markdown(reply), actions=source_actions(reply["sources"], index),
                      metadata={SOURCES_TAG: {"result": index, "papers": papers}})


def restored_actions(metadata: dict[str, Any], results: list[dict[str, Any]]) -> list[cl.Action]:
    """The buttons of a reopened "Sources of sentence n" reply or follow-up answer, from what its metadata keeps."""
    if isinstance(shown := metadata.get(SOURCES_TAG), dict):
        index, papers = shown.get("result"), shown.get("papers") or []
        if isinstance(index, int) and 0 <= index < len(results):
            return source_actions([s for s in results[index]["sources"] if s["n"] in papers], index)
    if isinstance(followup := metadata.get(FOLLOWUP_TAG), dict):
        return followup_original_actions(followup)
    return []


def current_index(values: dict[str, Any]) -> int | None:
    """The index of the check follow-ups are about (agent.followup.state.current), None before any check."""
    results, focus = values.get("results", []), values.get("focus", -1)
    if not results:
        return None
    return focus % len(results) if -len(results) <= focus < len(results) else len(results) - 1


def why_message(reply: dict[str, Any]) -> cl.Message:
    return cl.Message(content=why_markdown(reply))


def followup_message(reply: dict[str, Any]) -> cl.Message:
    """A follow-up answer; when self-correction changed it, its "Original answer" button, which a reopened thread
    gets back from the message's metadata (the thread keeps only its latest reply)."""
    actions = followup_original_actions(reply)
    if not actions:
        return cl.Message(content=followup_markdown(reply))
    return cl.Message(content=followup_markdown(reply), actions=actions, metadata={FOLLOWUP_TAG: actions[0].payload})


async def replace_actions(message: cl.Message, actions: list[cl.Action]) -> None:
    """Swap a message's buttons before its update (an update sends the new ones and leaves the old ones on screen)."""
    for action in message.actions:
        await action.remove()
    message.actions = actions
