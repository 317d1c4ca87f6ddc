"""A check's answer shown the moment the thread keeps the check, before the LLM translates it for a claim in another
language (agent.followup.translate) and writes the summary of its papers (agent.followup.supplement); the translation
replaces the English sentences when it comes, and each paper's generated summary is written into the answer's sources
as it comes: the verdict and the answer never wait for either."""

from __future__ import annotations

import logging
from typing import Any

import chainlit as cl

from agent.settings.app import get_settings
from tools.text.i18n import t
from ui.chat.runtime import chat_runtime, thread_config, thread_values
from ui.chat.sources import turn_deps
from ui.chat.views import answer_actions, answer_content, answer_message

log = logging.getLogger("claimtrace.ui")
TRANSLATING = "🌐 The LLM is translating the answer's sentences…"
WRITING = "📝 The LLM is writing a short summary of each paper from its abstract ({done} of {of} written)…"


class AnswerStream:
    """The answer of the turn's check, number ``index`` of the thread, with the notes of the user's message."""

    def __init__(self, index: int, notes: list[str]) -> None:
        self.index, self.notes = index, notes
        self.result: dict[str, Any] | None = None
        self.message: cl.Message | None = None
        self.written: set[int] = set()
        self.translating = False

    def papers(self) -> int:
        return len({s["n"] for s in self.result["sources"]}) if self.result else 0

    def writing(self) -> bool:
        return bool(self.result and self.result["sources"] and get_settings().judge.supplement
                    and len(self.written) < self.papers())

    def content(self) -> str:
        assert self.result is not None
        shown = answer_content(self.result, self.notes)
        if self.translating:
            shown += "\n\n" + t(TRANSLATING)
        if self.writing():
            shown += "\n\n" + t(WRITING, done=len(self.written), of=self.papers())
        return shown

    async def checked(self, result: dict[str, Any]) -> None:
        """Show the kept check's answer."""
        self.result = result
        self.translating = result.get("language", "en") != "en" and bool(result["sentences"])
        self.message = answer_message(result, self.index, self.notes)
        self.message.content = self.content()
        await self.message.send()

    async def translated(self, result: dict[str, Any] | None) -> None:
        """The answer's sentences translated (None: nothing was translated), and its "The checked English" button."""
        if self.message is None or self.result is None:
            return
        self.translating = False
        if result is not None:
            self.result = result
            await self.message.remove_actions()  # the buttons again, "The checked English" among them
            self.message.actions = answer_actions(result, self.index)
        self.message.content = self.content()
        await self.message.update()

    async def summary(self, event: dict[str, Any]) -> None:
        """One paper's generated summary, written: into its sources, and the answer shown again."""
        if self.result is None or self.message is None or event.get("result") != self.result.get("id"):
            return
        n = event.get("paper")
        for src in self.result["sources"]:
            if src["n"] == n:
                src["supplement"], src["supplement_note"] = str(event.get("text", "")), str(event.get("note", ""))
        if isinstance(n, int):
            self.written.add(n)
        self.message.content = self.content()
        await self.message.update()

    async def failed(self, why: str) -> None:
        """The translation or the summaries could not be written: the answer as kept, with a note that says why."""
        if self.message is None or self.result is None:
            return
        note = f"supplement: the translation or the generated summaries could not be written ({why})"
        self.result = {**self.result, "notes": [*self.result.get("notes", []), note]}
        self.written, self.translating = {s["n"] for s in self.result["sources"]}, False
        self.message.content = self.content()
        await self.message.update()

    async def finished(self, result: dict[str, Any] | None) -> None:
        """The check as the thread keeps it after the summaries (its notes say what was not written)."""
        if self.message is None or result is None:
            return
        self.result, self.written, self.translating = result, {s["n"] for s in result["sources"]}, False
        self.message.content = self.content()
        await self.message.update()


async def new_answer(notes: list[str] | None = None) -> AnswerStream:
    """The answer of the thread's next check, with ``notes`` on the user's message."""
    return AnswerStream(len((await thread_values(str(cl.context.session.thread_id))).get("results", [])), notes or [])


async def write_summaries(answer: AnswerStream) -> None:
    """The translation of the turn's check (agent.followup.translate) and its generated summaries
    (agent.followup.supplement), written into its answer as each one comes; nothing when the check's run ended
    otherwise (no check, an error)."""
    rt = await chat_runtime()
    config = thread_config(str(cl.context.session.thread_id))
    if "translate" not in (await rt.graph.aget_state(config)).next:
        return
    deps = turn_deps(rt.deps, cl.user_session.get("chat_settings"))
    try:
        async for mode, data in rt.graph.astream(None, config, context=deps, stream_mode=["updates", "custom"]):
            if mode == "updates" and "translate" in data:
                await answer.translated(((data["translate"] or {}).get("results") or [None])[0])
            elif mode == "custom" and isinstance(data, dict) and "supplement" in data:
                await answer.summary(data["supplement"])
            elif mode == "updates" and "supplement" in data:
                await answer.finished(((data["supplement"] or {}).get("results") or [None])[0])
    except Exception as e:  # the answer stands as it was kept: the summaries are extra, never worth the turn
        log.exception("the generated summaries could not be written")
        await answer.failed(f"{type(e).__name__}: {e}")
