"""The claimtrace chat (Chainlit 2.x). Run it with `claimtrace ui` (or `make run`).

Every turn goes through the thread graph (agent.followup), checkpointed by the Chainlit thread id; this module only
streams the graph's progress as steps and shows its replies. Bad input gets a clear message and the thread stays
usable."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import chainlit as cl
from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.types import ThreadDict

from agent.followup.intent import asked_sentence
from agent.llm.client import preload
from agent.service import InputError, validate_claim
from agent.settings.app import get_settings
from tools.text.i18n import t
from ui.chat import sentence_actions  # noqa: F401  (its buttons' callbacks register on import)
from ui.chat.answer_stream import AnswerStream, new_answer, write_summaries
from ui.chat.credentials import credentials_ok
from ui.chat.dense_build import building_line, finish_in_background
from ui.chat.earlier_view import CHECK_AGAIN, offer_earlier, remember
from ui.chat.failures import UNAVAILABLE, report_failure
from ui.chat.first_screen import PROFILE, STARTERS
from ui.chat.forget import chat_data_layer
from ui.chat.interrupted import (
    CHECK_WAITING,
    NOTHING_TO_RERUN,
    RERUN,
    interrupted_claim,
    running,
)
from ui.chat.library_view import is_library_command, library_turn
from ui.chat.notices import CORRECT, OWN_WORDS, corrected_english, reading_notice, rewritten_notice, take_offer
from ui.chat.passage import passage_or_message
from ui.chat.paste import accept_large_pastes
from ui.chat.progress import CheckProgress
from ui.chat.queued import CHECKS, own_turn, queue_slot
from ui.chat.resume import reattach
from ui.chat.runtime import chat_runtime, loaded_runtime, thread_config
from ui.chat.sources import send_widget, turn_deps
from ui.chat.speech import heard
from ui.chat.views import current_index, followup_message, sources_message, why_message
from ui.shared.untrusted import md

log = logging.getLogger("claimtrace.ui")
accept_large_pastes()
_background: set[asyncio.Task[None]] = set()


@cl.data_layer
def data_layer() -> SQLAlchemyDataLayer:
    return chat_data_layer()  # a deleted thread's checkpoints and feedback go with it (ui.chat.forget)


@cl.password_auth_callback
async def login(username: str, password: str) -> cl.User | None:
    """The one local user; a generated password's scrypt check (about 0.1 s of CPU) runs off the event loop."""
    if not await asyncio.to_thread(credentials_ok, get_settings(), username, password):
        return None
    return cl.User(identifier=username, metadata={"role": "owner"})


@cl.on_app_startup
async def warm_up() -> None:
    """Load the index and the verifier before the first message, then finish the dense index behind the chat when it
    was built keyword-first, and start loading the embedded model (errors are reported per turn instead)."""
    try:
        runtime = await chat_runtime()
    except UNAVAILABLE as e:
        log.error("claimtrace is not ready: %s", e)
        return
    log.info("claimtrace is ready")
    finish_in_background(runtime.deps, busy=lambda: CHECKS.running > 0)
    preload(get_settings())


@cl.set_chat_profiles
async def chat_profiles(user: cl.User | None, language: str | None) -> list[cl.ChatProfile]:
    """The one profile, whose icon and description the empty chat shows (ui.chat.first_screen)."""
    return [PROFILE]


@cl.set_starters
async def starters(user: cl.User | None, language: str | None) -> list[cl.Starter]:
    """The example claims under the description of an empty chat."""
    return STARTERS


@cl.on_chat_start
async def on_start() -> None:
    await send_widget(get_settings())
    if (runtime := loaded_runtime()) and (line := building_line(runtime.deps)):
        await cl.Message(content=line).send()


def thread_id() -> str:
    return str(cl.context.session.thread_id)


async def run_turn(
    text: str | None, resuming: str | None = None, verbatim: bool = False, answer: AnswerStream | None = None,
    earlier: list[dict[str, Any]] | None = None, english: str = "", translation: str = "",
) -> dict[str, Any]:
    """Send one validated user text through the thread graph, showing each pipeline step as it happens; with no
    text, run the thread's interrupted check of `resuming` again (ui.chat.interrupted); with `verbatim`, check the
    text exactly as typed; ``earlier``: the kept checks it was matched to (ui.chat.earlier_view); ``english``: the
    user's own English for the text (ui.chat.notices.corrected_english); ``translation``: the LLM's English for it,
    made while the text was read as a passage (ui.chat.passage), used where the text is checked as a claim. When the
    LLM turns the text into another claim to check, say so, with the user's own words on offer instead. A check's
    answer is shown the moment the thread keeps it (``answer``), and the run stops there: its papers' generated
    summaries come after (`write_summaries`)."""
    rt = await chat_runtime()
    deps = turn_deps(rt.deps, cl.user_session.get("chat_settings"))  # this chat's choice of sources
    answer = answer or await new_answer()
    progress: CheckProgress | None = None
    if resuming is not None:
        progress = CheckProgress()
        await progress.begin(resuming)
    working = await reading_notice(text, thread_id())
    try:
        with running(thread_id()):
            async for ns, mode, data in rt.graph.astream(
                None if text is None else {"message": text, "verbatim": verbatim, "earlier": earlier or [],
                                           "english": english, "translation": translation},
                thread_config(thread_id()),
                context=deps, interrupt_after=["check"],
                stream_mode=["updates", "messages", "custom"], subgraphs=True,
            ):
                if mode == "messages" and progress:
                    await progress.token(data[1].get("langgraph_node", ""), str(data[0].content))
                elif mode == "custom" and progress and isinstance(data, dict) and "reading" in data:
                    await progress.reading(data["reading"])
                elif mode == "updates" and not ns and "check" in data:
                    if progress:
                        await progress.finish()
                        progress = None
                    await answer.checked(data["check"]["results"][0])
                    await remember(data["check"]["results"][0], thread_id())
                elif mode == "updates" and not ns and "route" in data and working is not None:
                    working = await working.routed(data["route"].get("action"))
                if mode == "updates" and not ns and data.get("route", {}).get("action") == "check":
                    if text is not None and data["route"]["query"] != text:
                        await rewritten_notice(text, data["route"]["query"], data["route"].get("language"),
                                               yours=bool(english)).send()
                    progress = CheckProgress()
                    await progress.begin(data["route"]["query"])
                elif mode == "updates" and ns and progress:
                    for node, update in data.items():
                        await progress.node_done(node, update)
    except BaseException as e:
        if progress:
            await progress.finish(error=f"{type(e).__name__}: {e}")
        raise
    finally:
        if working is not None:
            await working.message.remove()
    if progress:
        await progress.finish()
    snapshot = await rt.graph.aget_state(thread_config(thread_id()))
    return dict(snapshot.values)


async def queued_turn(
    text: str | None, resuming: str | None = None, verbatim: bool = False, notes: list[str] | None = None,
    earlier: list[dict[str, Any]] | None = None, english: str = "", translation: str = "",
) -> dict[str, Any]:
    """`run_turn` behind the check queue: a turn that may run the pipeline or the LLM (a message, the re-run of an
    interrupted check) waits for a slot, showing its place; asking for the sources behind a sentence reads the
    stored result and never waits for a slot, only for the thread's own turn before it (ui.chat.queued.own_turn, which
    says so while it waits). A check's generated summaries are written once its slot is free, so the next check in
    line starts at once (the LLM still writes one summary at a time between other checks' readings)."""
    async with own_turn(thread_id()):  # the thread's earlier turn finishes first, its summaries included
        if text is not None and asked_sentence(text) is not None:
            return await run_turn(text)
        with running(thread_id()):  # a turn waiting for its slot is no interrupted one (ui.chat.interrupted.unanswered)
            answer = await new_answer(notes)
            async with queue_slot():
                values = await run_turn(text, resuming, verbatim, answer, earlier, english, translation)
            await write_summaries(answer)
            return values


@cl.on_message
async def on_message(message: cl.Message) -> None:
    settings = get_settings()
    raw = message.content
    if is_library_command(raw):  # "Your library": a list with Remove buttons, never a claim to check
        await library_turn()
        return
    try:
        as_one = await passage_or_message(raw)
    except Exception as e:
        await report_failure(e)
        return
    if as_one is None:
        return
    raw = as_one.text
    try:
        text, notes = validate_claim(raw, settings.answer.max_claim_chars)
    except InputError as e:
        await cl.Message(content=t("⚠️ I cannot check this: {why}. Send another claim or question.",
                                   why=md(str(e)))).send()
        return
    heard(text)  # from now on the chat speaks the language of this message (ui.chat.speech)
    try:
        if await offer_earlier(text, thread_id()):  # checked before: the user chooses (on_check_again)
            return
        values = await queued_turn(text, notes=notes, translation=as_one.translation)
    except Exception as e:
        await report_failure(e)
        return
    reply = values.get("reply", {})
    if reply.get("kind") == "check":  # shown as the thread kept it (run_turn)
        return
    if reply.get("kind") == "sources":
        await sources_message(reply, current_index(values)).send()
    elif reply.get("kind") == "why":
        await why_message(reply).send()
    else:
        await followup_message(reply).send()


@cl.action_callback(RERUN)
async def on_rerun(action: cl.Action) -> None:
    """Run the thread's interrupted check again, from the checkpoint that started it."""
    await action.remove()
    claim = await interrupted_claim((await chat_runtime()).graph, thread_id())
    if claim is None:
        await cl.Message(content=NOTHING_TO_RERUN).send()
        return
    try:
        await queued_turn(None, resuming=claim)  # the answer is shown as the thread keeps it (run_turn)
    except Exception as e:
        await report_failure(e)


@cl.action_callback(CHECK_WAITING)
async def on_check_waiting(action: cl.Action) -> None:
    """Check the message that waited for its turn when the server stopped, as if it had just been sent."""
    await action.remove()
    await on_message(cl.Message(content=str(action.payload["text"])))


@cl.action_callback(OWN_WORDS)
async def on_own_words(action: cl.Action) -> None:
    """Check the message the LLM rewrote exactly as the user typed it (it was validated when it was sent)."""
    take_offer(str(action.payload["text"]))
    await action.remove()
    try:
        await queued_turn(str(action.payload["text"]), verbatim=True)  # the answer is shown by run_turn
    except Exception as e:
        await report_failure(e)


@cl.action_callback(CORRECT)
async def on_correct(action: cl.Action) -> None:
    """Check a translated claim with the English the user writes for it; the answer still comes in their language."""
    english = await corrected_english(str(action.payload["english"]))
    if english is None:
        return
    try:
        await queued_turn(str(action.payload["text"]), english=english)
    except Exception as e:
        await report_failure(e)


@cl.action_callback(CHECK_AGAIN)
async def on_check_again(action: cl.Action) -> None:
    """Check a claim matched to an earlier check anew; the new check keeps the earlier ones as its link."""
    await action.remove()
    try:
        await queued_turn(str(action.payload["text"]), verbatim=True, earlier=list(action.payload["earlier"]))
    except Exception as e:
        await report_failure(e)


@cl.on_chat_resume
async def on_resume(thread: ThreadDict) -> None:
    """The thread's state lives in the checkpointer under the same id; follow-ups continue from it."""
    await send_widget(get_settings())
    task = asyncio.create_task(reattach(thread))
    _background.add(task)
    task.add_done_callback(_background.discard)
