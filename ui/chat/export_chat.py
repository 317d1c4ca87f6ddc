"""The Export button under each finished check in the chat: a click sends the check as four downloadable files,
a Markdown report, the full JSON result, and its sources as BibTeX and RIS (ui.export.formats), read from the thread's
stored result so that they match `claimtrace export` of the same check.

The files are kept in the chat session (Chainlit serves them to this session only); a reopened thread makes them
again on the next click."""

from __future__ import annotations

from collections.abc import Callable

import chainlit as cl

from agent.result import CheckResult
from agent.settings.app import get_settings
from tools.index.live_docs import removed_days
from ui.chat.runtime import thread_values
from ui.export.formats import FORMATS, export_text, file_name
from ui.shared.untrusted import md

ACTION = "export"
LABEL = "Export"
GONE = "⚠️ That check is no longer in this thread, so it cannot be exported."


def export_action(index: int) -> cl.Action:
    """The button under the answer of the thread's check number `index` (0-based, as the thread keeps them)."""
    return cl.Action(name=ACTION, label=LABEL, tooltip="Download this check as Markdown, JSON, BibTeX and RIS",
                     icon="download", payload={"result": index})


def format_files(name: Callable[[str], str], text: Callable[[str], str]) -> list[cl.File]:
    """One downloadable file per export format: ``name(fmt)`` holding ``text(fmt)``."""
    return [
        cl.File(name=name(fmt), content=text(fmt).encode("utf-8"), mime=mime, display="inline")
        for fmt, (mime, _) in FORMATS.items()
    ]


def export_files(result: CheckResult) -> list[cl.File]:
    """The four files; a source that has left the index since the check is marked with the day it left."""
    removed = removed_days(get_settings().stores.index_dir)
    return format_files(lambda fmt: file_name(result, fmt), lambda fmt: export_text(result, fmt, removed))


@cl.action_callback(ACTION)
async def on_export(action: cl.Action) -> None:
    results = (await thread_values(str(cl.context.session.thread_id))).get("results", [])
    index = action.payload.get("result")
    if not isinstance(index, int) or not 0 <= index < len(results):
        await cl.Message(content=GONE).send()
        return
    result = CheckResult.model_validate(results[index])
    await cl.Message(
        content=f"**Export** of the check of: {md(result.claim)}\n\nA Markdown report, the full result as JSON, and "
        "its sources as BibTeX and RIS:",
        elements=export_files(result),
    ).send()
