"""What the chat shows while the LLM reads a follow-up (without it the user sees a silent dot for seconds), and the
claim it checks when the LLM turned a follow-up into a new search or a claim into English, with the user's own words
on offer instead, and, for a translation, the user's own English."""

from __future__ import annotations

from typing import Any

import chainlit as cl

from agent.followup.intent import asked_sentence, asks_why
from agent.service import InputError, validate_claim
from agent.settings.app import get_settings
from tools.text.i18n import t
from tools.text.language import ENGLISH, LANGUAGES, language_of
from ui.chat.runtime import thread_values
from ui.shared.untrusted import md

OWN_WORDS = "own_words"  # the action that checks the user's message exactly as typed
OWN_WORDS_TAG = "claimtrace_own_words"  # message metadata: the message the notice offers to check as typed
CORRECT = "correct_english"  # the action that checks a translated claim with the English the user writes for it
ENGLISH_TAG = "claimtrace_english"  # message metadata: the English a claim in another language was checked as
CORRECT_TIMEOUT_S = 600
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


def correct_action(asked: str, claim: str) -> cl.Action:
    return cl.Action(name=CORRECT, label=t("Correct the English"), payload={"text": asked, "english": claim},
                     tooltip=t("Write the English of your claim yourself: it is checked instead of the LLM's"))


async def corrected_english(claim: str) -> str | None:
    """The English the user writes for their claim in place of the LLM's translation ``claim``; None (and a message
    saying why) when none comes, or it is not a claim in English."""
    ask = cl.AskUserMessage(content=t("Send your claim in English, as it should be checked. The LLM's English: "
                                      "“{claim}”", claim=md(claim)), timeout=CORRECT_TIMEOUT_S)
    reply = await ask.send()
    # Called from a button's callback, which runs as no task: Chainlit starts one when an ask ends, and nothing would
    # end it, so the composer would show its stop button for good.
    await cl.context.emitter.task_end()
    if reply is None:
        return None
    try:
        english, _ = validate_claim(str(reply.get("output", "")), get_settings().answer.max_claim_chars)
    except InputError as e:
        await cl.Message(content=t("⚠️ I cannot check this: {why}. Send another claim or question.",
                                   why=md(str(e)))).send()
        return None
    if language_of(english) != ENGLISH:
        await cl.Message(content=t("⚠️ That is not in English, so nothing was checked. Press the button again and "
                                   "send your claim in English.")).send()
        return None
    return english


def rewritten_notice(asked: str, claim: str, language: str | None = None, yours: bool = False) -> cl.Message:
    """Said before a check of a claim the LLM wrote from a follow-up, or of the English of a claim in the user's
    language (translated by the LLM, or ``yours``: written by the user, "Correct the English"): which claim it checks,
    and buttons that check the user's own words instead, and, for a claim in another language, its English as the
    user writes it (a reopened thread offers them again: ui.chat.resume)."""
    foreign = bool(language and language != ENGLISH)
    if foreign and yours:
        content = t("🔎 Checked as: “{claim}” (your claim in English, as you wrote it: the literature searched is in "
                    "English).", claim=md(claim))
    elif foreign:
        content = t("🔎 Checked as: “{claim}” (your claim in English, translated from {language} by the LLM: the "
                    "literature searched is in English).", claim=md(claim), language=t(LANGUAGES[str(language)]))
    else:
        content = t("🔎 I read your message as a new claim to check: “{claim}”.", claim=md(claim))
    metadata = {OWN_WORDS_TAG: asked, **({ENGLISH_TAG: claim} if foreign else {})}
    return cl.Message(content=content, actions=rewrite_actions(metadata, True), metadata=metadata)


def rewrite_actions(metadata: dict[str, Any], offered: bool) -> list[cl.Action]:
    """The buttons under a rewritten claim's notice (its ``metadata``): "Check my words instead" while ``offered``,
    and "Correct the English" under the English of a claim in another language."""
    asked, english = metadata[OWN_WORDS_TAG], metadata.get(ENGLISH_TAG)
    return [*([own_words_action(asked)] if offered else []),
            *([correct_action(asked, english)] if isinstance(english, str) else [])]


def take_offer(asked: str) -> None:
    """Note that the user pressed the offer of ``asked`` (its check may still be running)."""
    cl.user_session.set(TAKEN, {*(cl.user_session.get(TAKEN) or set()), asked})


def still_offered(asked: str, results: list[dict[str, Any]]) -> bool:
    """Whether a reopened thread offers to check ``asked`` as typed: not once the thread holds a check of it, nor
    once the user pressed the offer in this session."""
    return asked not in (cl.user_session.get(TAKEN) or set()) and all(r.get("claim") != asked for r in results)
