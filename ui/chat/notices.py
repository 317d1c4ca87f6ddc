"""What the chat shows while the LLM reads a follow-up (without it the user sees a silent dot for seconds), and the
claim it checks when the LLM turned a follow-up into a new search, with the user's own words on offer instead."""

from __future__ import annotations

from typing import Any

import chainlit as cl

from agent.followup.intent import asked_sentence, asks_why
from tools.text.i18n import t
from tools.text.language import ENGLISH, LANGUAGES
from ui.chat.runtime import thread_values
from ui.shared.untrusted import md

OWN_WORDS = "own_words"  # the action that checks the user's message exactly as typed
OWN_WORDS_TAG = "claimtrace_own_words"  # message metadata: the message the notice offers to check as typed
TAKEN = "claimtrace_own_words_taken"  # user_session: the messages this session has checked as typed from the offer


class ReadingNotice:
    """What the chat shows while the LLM reads a follow-up (which would otherwise be a silent dot for seconds), then
    while the reply is checked sentence by sentence; removed when the reply is shown, or when a new check starts
    (its own steps show its progress)."""

    READING = "⏳ Reading your follow-up with the LLM: it answers from the evidence already held, or checks it anew…"
    CHECKING = (
        "⏳ Checking each sentence of the reply against the evidence held (the verifier; the LLM rewrites a flagged "
        "one)…"
    )

    def __init__(self, message: cl.Message) -> None:
        self.message = message

    async def routed(self, action: str | None) -> ReadingNotice | None:
        if action == "answer":
            self.message.content = t(self.CHECKING)
            await self.message.update()
            return self
        await self.message.remove()
        return None


async def reading_notice(text: str | None, thread: str) -> ReadingNotice | None:
    """The notice for a follow-up the LLM routes: not for a first message (a claim, checked with its own steps), a
    request for the sources behind a sentence or a "why?" (both answered at once, without the LLM)."""
    if text is None or asked_sentence(text) is not None or asks_why(text):
        return None
    if not (await thread_values(thread)).get("results"):
        return None
    message = cl.Message(content=t(ReadingNotice.READING))
    await message.send()
    return ReadingNotice(message)


def own_words_action(asked: str) -> cl.Action:
    return cl.Action(name=OWN_WORDS, label=t("Check my words instead"), payload={"text": asked},
                     tooltip=t("Check your message exactly as you typed it"))


def rewritten_notice(asked: str, claim: str, language: str | None = None) -> cl.Message:
    """Said before a check of a claim the LLM wrote from a follow-up, or translated into English from the user's
    language (agent.translate): which claim it checks, and a button that checks the user's own words instead (a
    reopened thread offers it again until they are checked: ui.chat.resume)."""
    if language and language != ENGLISH:
        content = t("🔎 Checked as: “{claim}” (your claim in English, translated from {language} by the LLM: the "
                    "literature searched is in English).", claim=md(claim), language=t(LANGUAGES[language]))
    else:
        content = t("🔎 I read your message as a new claim to check: “{claim}”.", claim=md(claim))
    return cl.Message(content=content, actions=[own_words_action(asked)], metadata={OWN_WORDS_TAG: asked})


def take_offer(asked: str) -> None:
    """Note that the user pressed the offer of ``asked`` (its check may still be running)."""
    cl.user_session.set(TAKEN, {*(cl.user_session.get(TAKEN) or set()), asked})


def still_offered(asked: str, results: list[dict[str, Any]]) -> bool:
    """Whether a reopened thread offers to check ``asked`` as typed: not once the thread holds a check of it, nor
    once the user pressed the offer in this session."""
    return asked not in (cl.user_session.get(TAKEN) or set()) and all(r.get("claim") != asked for r in results)
