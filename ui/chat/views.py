"""Chainlit messages for each kind of reply: Markdown from ui.chat.render, side panels that open each source [n], and
the buttons under an answer (sources of a sentence, feedback, export)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import chainlit as cl

from agent.settings.app import get_settings
from ui.chat.consensus_view import consensus_figure
from ui.chat.export_chat import export_action  # importing it registers the Export callback with Chainlit
from ui.chat.render import (
    ORIGINAL,
    answer_markdown,
    followup_markdown,
    open_name,
    original_detail,
    paper_detail,
    sentence_sources_markdown,
    why_markdown,
)
from ui.shared.consensus import charted, consensus_of
from ui.shared.papers import by_paper

ANSWER_TAG = "claimtrace_answer"  # message metadata key: index of the thread result the message shows
CHART = "consensus chart"  # the name of the consensus figure under an answer (no word of the answer's text)
# a chart to read, not to edit: no mode bar (its buttons and the plotly.com logo link)
CHART_CONFIG = {"displayModeBar": False, "displaylogo": False}
TITLE_CHARS = 90  # the longest claim the side panel's title quotes whole
SIDEBAR_AGAIN_S = (1.0, 2.0)  # seconds before each later pointing of the side panel at the check just shown
_pointing: set[asyncio.Task[None]] = set()  # those pointings, kept until done


def source_panels(sources: list[dict[str, Any]]) -> list[cl.Text]:
    window = get_settings().judge.context_window
    return [
        cl.Text(name=open_name(paper[0]["n"]), content=paper_detail(paper, window), display="side")
        for paper in by_paper(sources)
    ]


def sentence_actions(result: dict[str, Any], index: int) -> list[cl.Action]:
    """The buttons under an answer: each sentence's sources and feedback, then Export (ui.chat.export_chat)."""
    actions: list[cl.Action] = []
    for k, s in enumerate(result["sentences"], start=1):
        actions.append(cl.Action(name="sentence_sources", label=f"Sources of sentence {k}",
                                 payload={"result": index, "sentence": k}))
        kind, label = ("flag_wrong", f"Flag on sentence {k} is wrong") if s["flagged"] else (
            "unsupported", f"Sentence {k} is unsupported")
        actions.append(cl.Action(name="feedback", label=label, payload={"result": index, "sentence": k, "kind": kind}))
    return [*actions, export_action(index)]


def original_panel(result: dict[str, Any]) -> list[cl.Text]:
    """The answer before self-correction and what was changed, when anything was."""
    if not result.get("corrections"):
        return []
    return [cl.Text(name=ORIGINAL, content=original_detail(result), display="side")]


def consensus_chart(result: dict[str, Any]) -> list[cl.Plotly]:
    """The consensus figure shown under an answer, when at least two papers count; with fewer, the verdict's
    sentence says all the figure would."""
    c = consensus_of(result)
    if not charted(c):
        return []
    chart = cl.Plotly(name=CHART, figure=consensus_figure(c), display="inline")
    chart.content = json.dumps({**json.loads(chart.content), "config": CHART_CONFIG})  # Chainlit passes it to plotly
    return [chart]


def answer_elements(result: dict[str, Any]) -> list[cl.Text | cl.Plotly]:
    """What an answer carries besides its text and buttons: its source panels, the "Original answer" panel and the
    consensus chart; a reopened thread gets them back from the check (ui.chat.resume)."""
    return [*source_panels(result["sources"]), *original_panel(result), *consensus_chart(result)]


def answer_message(result: dict[str, Any], index: int, notes: list[str]) -> cl.Message:
    shown = {**result, "notes": notes + result.get("notes", [])}
    return cl.Message(
        content=answer_markdown(shown),
        elements=answer_elements(result),
        actions=sentence_actions(result, index),
        metadata={ANSWER_TAG: index},
    )


async def point_sidebar(result: dict[str, Any], index: int) -> None:
    """Set the side panel to this check's sources, under its claim (copies drawn inline there, so that they do not
    set off Chainlit's own opening of the panel again); a check with no source closes it."""
    panels = [cl.Text(name=p.name, content=p.content, display="inline") for p in source_panels(result["sources"])]
    await cl.ElementSidebar.set_elements(panels, key=f"check-{index}")
    if panels:
        claim = result["claim"] if len(result["claim"]) <= TITLE_CHARS else result["claim"][: TITLE_CHARS - 1] + "…"
        await cl.ElementSidebar.set_title(f"Sources of “{claim}”")


async def point_sidebar_again(result: dict[str, Any], index: int) -> None:
    for wait in SIDEBAR_AGAIN_S:
        await asyncio.sleep(wait)
        await point_sidebar(result, index)


async def send_answer(result: dict[str, Any], index: int, notes: list[str]) -> None:
    """Show a check's answer, and point the side panel at its sources.

    Chainlit opens the side panel by itself whenever a message brings side panels, with every side panel of the
    thread in it and the newest one's name as its title, so after a second check it would show the first check's
    Source 1 under the title "Source 2" (or "Original answer"). It does so once the browser has drawn the message,
    which can come after this call's own setting of the panel, so the panel is pointed again a moment later.
    Clicking "Source n" in any answer still opens that answer's own source n."""
    await answer_message(result, index, notes).send()
    await point_sidebar(result, index)
    task = asyncio.create_task(point_sidebar_again(result, index))
    _pointing.add(task)
    task.add_done_callback(_pointing.discard)


def sources_message(reply: dict[str, Any]) -> cl.Message:
    return cl.Message(content=sentence_sources_markdown(reply),
                      elements=source_panels(reply.get("sources", [])))


def why_message(reply: dict[str, Any]) -> cl.Message:
    return cl.Message(content=why_markdown(reply))


def followup_message(reply: dict[str, Any]) -> cl.Message:
    return cl.Message(content=followup_markdown(reply), elements=original_panel(reply))
