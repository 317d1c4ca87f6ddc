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

from agent.earlier.matches import STORE_ERRORS, EarlierCheck, find_earlier, record
from agent.followup.route import checks_without_the_llm
from agent.settings.app import get_settings
from tools.text.i18n import t
from ui.chat.render import answer_markdown
from ui.chat.runtime import chat_runtime, thread_values
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
    return False when there is none to show."""
    settings = get_settings()
    if not settings.stores.earlier_checks or not await would_check(text, thread):
        return False
    from tools.models.embedder import get_embedder

    deps = (await chat_runtime()).deps
    try:
        found = await asyncio.to_thread(find_earlier, settings, get_embedder(), deps.verifier, text, chat_user(),
                                        llm=deps.llm)
    except STORE_ERRORS as e:
        log.warning("earlier checks were not looked up: %s", e)
        return False
    matches = [e for e in found if e.matched]
    if not matches:
        return False
    await earlier_message(text, matches).send()
    return True


def earlier_message(text: str, matches: list[EarlierCheck]) -> cl.Message:
    lines = []
    actions = []
    for e in matches:
        kind = t("This claim") if e.relation == "same" else t("Its opposite")
        lines.append(f"- {kind}: {md(e.describe())}")
        actions.append(cl.Action(name=OPEN_EARLIER, label=t("Open the check of {day}", day=e.day),
                                 payload={"thread_id": e.thread_id, "check_id": e.check_id, "day": e.day}))
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
