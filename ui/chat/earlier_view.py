"""Checked before, in the chat: before a new claim is searched, a kept check of the same claim or of its opposite
(agent.earlier) shows at once, with its verdict, date and who checked it, and two buttons: open that check (its
answer as it was kept), or check again now (the index may have changed; the new check keeps a link to the old one).
Nothing is reused silently: the user chooses. Every check the chat keeps is recorded so that later claims find it.

A chat user is matched to their own checks only, unless the deployment shares them (SHARE_CHECKS)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import chainlit as cl

from agent.earlier.matches import STORE_ERRORS, EarlierCheck, look_up, record
from agent.followup.route import checks_without_the_llm
from agent.settings.app import get_settings
from tools.text.i18n import t
from ui.chat.render import answer_markdown
from ui.chat.runtime import chat_runtime, thread_values
from ui.chat.views import replace_actions
from ui.shared.untrusted import md

log = logging.getLogger("claimtrace.ui")
OPEN_EARLIER = "open_earlier"
CHECK_AGAIN = "check_again"


def chat_user() -> str:
    user = cl.user_session.get("user")
    return str(getattr(user, "identifier", "") or "")


async def would_check(text: str, thread: str) -> bool:
    """Whether the thread graph checks this message as a new claim without asking the LLM
    (agent.followup.route.checks_without_the_llm); a follow-up is never matched."""
    return checks_without_the_llm(text, bool((await thread_values(thread)).get("results")))


async def offer_earlier(text: str, thread: str) -> bool:
    """Show the kept checks that match ``text`` and return True (the turn then waits for the user's choice), or
    return False when there is none to show. What the verifier decides shows at once; where it leaves the nearest
    kept claim unsure and the LLM is to read the pair, that claim shows at once as a candidate, with its check one
    click away, and the message then says what the LLM read: the same claim (the offer, as for the verifier's), or
    related only (the check goes on)."""
    settings = get_settings()
    if not settings.stores.earlier_checks or not await would_check(text, thread):
        return False
    from tools.models.embedder import get_embedder

    deps = (await chat_runtime()).deps
    try:
        looked = await asyncio.to_thread(look_up, settings, get_embedder(), deps.verifier, text, chat_user())
    except STORE_ERRORS as e:
        log.warning("earlier checks were not looked up: %s", e)
        return False
    matches = [e for e in looked.checks() if e.matched]
    if matches:
        await earlier_message(text, matches).send()
        return True
    unsure = looked.unsure()
    if not unsure or deps.llm is None or not settings.stores.earlier_llm:
        return False
    candidate = candidate_message(unsure)
    await candidate.send()
    read = await asyncio.to_thread(looked.read_by, deps.llm)
    matches = [e for e in read.checks() if e.matched]
    if matches:
        offer = earlier_message(text, matches)
        candidate.content = offer.content
        await replace_actions(candidate, offer.actions)
    else:
        said = (t("🔁 The LLM did not answer whether this kept claim is the same claim as yours. Checking yours now.")
                if any(e.llm_same is None for e in read.unsure())
                else t("🔁 Not the same claim: the kept claim is only related. Checking yours now."))
        candidate.content = said + "\n" + kept_lines(unsure)
    await candidate.update()
    return bool(matches)


def open_action(e: EarlierCheck) -> cl.Action:
    return cl.Action(name=OPEN_EARLIER, label=t("Open the check of {day}", day=e.day),
                     payload={"thread_id": e.thread_id, "check_id": e.check_id, "day": e.day})


def kept_lines(checks: list[EarlierCheck]) -> str:
    return "\n".join(f"- {md(e.summary())}" for e in checks)


def candidate_message(unsure: list[EarlierCheck]) -> cl.Message:
    """The kept claims the LLM is reading against the new one, shown while it reads, each with its check one click
    away."""
    content = (t("🔁 **Maybe checked before.** Reading whether this kept claim is the same claim as yours:") + "\n"
               + kept_lines(unsure))
    return cl.Message(content=content, actions=[open_action(e) for e in unsure])


def earlier_message(text: str, matches: list[EarlierCheck]) -> cl.Message:
    lines = []
    actions = []
    for e in matches:
        kind = t("This claim") if e.relation == "same" else t("Its opposite")
        lines.append(f"- {kind}: {md(e.describe())}")
        actions.append(open_action(e))
    actions.append(cl.Action(name=CHECK_AGAIN, label=t("Check again now"),
                             payload={"text": text, "earlier": [e.model_dump() for e in matches]}))
    content = (t("🔁 **Checked before.**") + "\n" + "\n".join(lines) + "\n\n"
               + t("Open the earlier check, or check again now: the index and the live sources may have changed "
                   "since."))
    return cl.Message(content=content, actions=actions)


@cl.action_callback(OPEN_EARLIER)
async def on_open_earlier(action: cl.Action) -> None:
    """The earlier check's answer, as its thread keeps it."""
    payload = action.payload
    results = (await thread_values(str(payload["thread_id"]))).get("results") or []
    kept = next((r for r in results if r.get("id") == payload["check_id"]), results[-1] if results else None)
    if kept is None:
        await cl.Message(content=t("⚠️ That check is no longer kept (its thread was deleted).")).send()
        return
    await cl.Message(content=t("**The check of {day}, as it was kept:**", day=md(str(payload["day"]))) + "\n\n"
                     + answer_markdown(kept)).send()


async def remember(result: dict[str, Any], thread: str) -> None:
    """Record a check the chat kept, so that later claims find it; a store that cannot take it costs a log line."""
    settings = get_settings()
    if not settings.stores.earlier_checks:
        return
    from tools.models.embedder import get_embedder

    try:
        await asyncio.to_thread(record, settings, get_embedder(), result, thread, chat_user())
    except STORE_ERRORS as e:
        log.warning("this check cannot be found by later ones: %s", e)
