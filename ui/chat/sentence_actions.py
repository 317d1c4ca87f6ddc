"""The buttons under an answer sentence: the sources behind it, and the user's feedback on its flag (kept with the
check it belongs to, agent.store.feedback)."""

from __future__ import annotations

import asyncio

import chainlit as cl

from agent.followup.sources import sources_behind
from agent.result import CheckResult
from agent.settings.app import get_settings
from agent.store.feedback import record_feedback
from tools.text.i18n import t
from ui.chat.runtime import thread_values
from ui.chat.views import sources_message


def thread_id() -> str:
    return str(cl.context.session.thread_id)


async def result_at(index: int) -> CheckResult | None:
    results = (await thread_values(thread_id())).get("results", [])
    return CheckResult.model_validate(results[index]) if 0 <= index < len(results) else None


@cl.action_callback("sentence_sources")
async def on_sentence_sources(action: cl.Action) -> None:
    index = int(action.payload["result"])
    if (result := await result_at(index)) is not None:
        await sources_message(sources_behind(result, int(action.payload["sentence"])), index).send()


@cl.action_callback("feedback")
async def on_feedback(action: cl.Action) -> None:
    p = action.payload
    result = await result_at(int(p["result"]))
    if result is None:
        return
    sentence = int(p["sentence"])
    await asyncio.to_thread(record_feedback, get_settings(), thread_id(), result, sentence, p["kind"])
    what = t("the flag is wrong") if p["kind"] == "flag_wrong" else t("it is unsupported")
    await cl.Message(content=t("Thanks: recorded that on sentence {n} {what}.", n=p["sentence"], what=what)).send()
