"""A passage in the chat. A message whose sentences state two or more findings is read as a passage: the user sees
the claims found (agent.passage), drops or edits any, then checks them, or sends the text as one message instead.
Every provisional verdict comes first (no LLM, about a second a claim), then each full check in turn; each step
waits for the chat's check queue as a single check does. The table fills in as verdicts come, and each row's button
opens its full check, after which follow-ups are about that claim.

Each full check is kept in the thread's `results`, like a single check; the passage itself (claims, audits, notes,
and where each row's check is in `results`) in its `passages`, so its export and its buttons outlive a reopened
thread."""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

import chainlit as cl

from agent.passage.check import extract_claims, finish, provisional, validate_passage
from agent.passage.extract import renumbered, reworded
from agent.passage.foreign import (
    MAX_SENTENCES,
    EnglishText,
    distinct_sentences,
    in_english_text,
    passage_language,
    sentence_count,
)
from agent.passage.model import PassageCheck, PassageClaim
from agent.provenance import run_info
from agent.service import InputError, findings, validate_claim
from agent.settings.app import get_settings
from agent.state import Deps
from tools.text.i18n import t, t_n, written
from tools.text.language import ENGLISH
from ui.chat.earlier_view import remember
from ui.chat.export_chat import format_files
from ui.chat.passage_view import claims_markdown, report_markdown, stored_passage, table_markdown
from ui.chat.queued import queue_slot
from ui.chat.runtime import add_to_thread, chat_runtime, thread_values
from ui.chat.sources import turn_deps
from ui.chat.speech import speak
from ui.chat.views import replace_actions, send_answer
from ui.export.passage import export_passage
from ui.shared.untrusted import md

PASSAGE_TAG = "claimtrace_passage"  # message metadata: the index of the thread's passage a table shows
CHOICE = "passage_choice"
OPEN = "passage_open"
EXPORT = "passage_export"
CHOICE_TIMEOUT_S = 1800  # the claim list waits this long for Check, Edit or Drop
EDIT_TIMEOUT_S = 600


class OneMessage(NamedTuple):
    """A text to check as one message (a claim, or a follow-up about the last check), with the LLM's English for it
    when the chat translated it while reading it as a passage ("" otherwise): a claim checks that English and is not
    translated again."""

    text: str
    translation: str = ""


def looks_like_passage(text: str) -> bool:
    """Two or more sentences that each state a finding (rules, no LLM; the first MAX_PASSAGE_CHARS read)."""
    return findings(text[: get_settings().answer.max_passage_chars]) >= 2


def may_be_foreign_passage(text: str) -> bool:
    """Two or more sentences in a language other than English: the claim rules read English, so only the text's
    English (agent.passage.foreign) tells whether it states two or more findings."""
    head = text[: get_settings().answer.max_passage_chars]
    return len(distinct_sentences(head)) >= 2 and passage_language(head) != ENGLISH


async def passage_or_message(raw: str) -> OneMessage | None:
    """The passage turn when ``raw`` reads as a passage, in English or in its English translation; returns the
    message to check as one (``raw``, or what the user chose to send as one message), None when the passage turn
    took it."""
    if looks_like_passage(raw):
        return await passage_turn(raw)
    if may_be_foreign_passage(raw):
        return await passage_turn(raw, foreign=True)
    return OneMessage(raw)


def _thread() -> str:
    return str(cl.context.session.thread_id)


async def passage_turn(raw: str, foreign: bool = False) -> OneMessage | None:
    """Find the passage's claims, let the user edit them, check them. Returns the message when the user asks to
    send it as one message instead (a claim, or a follow-up about the last check), else None. A ``foreign`` text
    is read in its English first; when that states fewer than two findings, it is returned to be checked as one
    message, with that English when every sentence of it was translated."""
    try:
        text, notes = validate_passage(raw, get_settings().answer.max_passage_chars)
    except InputError as e:
        await cl.Message(content=t("⚠️ I cannot check this text: {why}. Send another text or claim.",
                                   why=md(str(e)))).send()
        return None
    deps = turn_deps((await chat_runtime()).deps, cl.user_session.get("chat_settings"))
    origin = await read_in_english(text, deps) if foreign else None
    if origin is not None and findings(origin.text) < 2:
        whole = origin.whole and len(origin.text) <= get_settings().answer.max_claim_chars
        return OneMessage(raw, origin.text if whole else "")
    english = origin.text if origin is not None else text
    async with queue_slot():  # the LLM may make a claim stand alone
        check = await asyncio.to_thread(extract_claims, english, deps, notes, None, run_info(deps.settings, deps.llm),
                                        origin)
    listing = cl.Message(content=claims_markdown(check))
    await listing.send()
    if not check.claims:
        return None
    choice = await edit_claims(check, listing)
    if choice == "one":
        return OneMessage(raw)
    if choice == "check":
        await run_checks(check, deps)
    return None


async def read_in_english(text: str, deps: Deps) -> EnglishText:
    """The text's English (agent.passage.foreign), the user told while the LLM translates it."""
    speak(passage_language(text))  # the chat speaks the text's language from now on, as it does for a claim
    n = min(sentence_count(text), MAX_SENTENCES)
    note = cl.Message(content=t("🌐 Reading your text in English: the LLM translates its {n} sentences one by one.",
                                n=n))
    await note.send()
    async with queue_slot():
        origin = await asyncio.to_thread(in_english_text, deps.llm, text)
    await note.remove()
    return origin


def _choices(check: PassageCheck) -> list[cl.Action]:
    actions = [cl.Action(name=CHOICE, label=t_n(len(check.claims), "Check 1 claim", "Check {n} claims"),
                         payload={"do": "check"})]
    for row in check.claims:
        actions.append(cl.Action(name=CHOICE, label=t("Edit {n}", n=row.n), payload={"do": "edit", "n": row.n}))
        actions.append(cl.Action(name=CHOICE, label=t("Drop {n}", n=row.n), payload={"do": "drop", "n": row.n}))
    actions.append(cl.Action(name=CHOICE, label=t("Send it as one message"), payload={"do": "one"}))
    return actions


async def edit_claims(check: PassageCheck, listing: cl.Message) -> str:
    """Ask until the user checks ("check"), sends the text as one message ("one") or leaves ("none"); each edit or
    drop updates ``check`` and the list on screen."""
    while True:
        ask = cl.AskActionMessage(content=t("Check these claims?"), actions=_choices(check), timeout=CHOICE_TIMEOUT_S)
        reply = await ask.send()
        await ask.remove()
        if reply is None:
            await cl.Message(content=t("No choice came, so the claims were not checked; send the text again to "
                                       "check it.")).send()
            return "none"
        do, n = reply["payload"]["do"], reply["payload"].get("n")
        if do in ("check", "one"):
            return str(do)
        if do == "drop":
            check.claims = renumbered([row for row in check.claims if row.n != n])
        elif (
            do == "edit"
            and (row := next((r for r in check.claims if r.n == n), None)) is not None
            and (wording := await ask_wording(row)) is not None
        ):
            check.claims = renumbered([reworded(r, wording) if r is row else r for r in check.claims])
        listing.content = claims_markdown(check)
        await listing.update()
        if not check.claims:
            await cl.Message(content=t("Every claim was dropped, so there is nothing to check.")).send()
            return "none"


async def ask_wording(row: PassageClaim) -> str | None:
    """The user's wording of one claim, checked as a claim typed in the chat is; None keeps the old one."""
    asked = cl.AskUserMessage(
        content=t("Send claim {n} as it should be checked. It reads now: “{claim}”", n=row.n, claim=md(row.claim)),
        timeout=EDIT_TIMEOUT_S,
    )
    reply = await asked.send()
    if reply is None:
        return None
    try:
        claim, _ = validate_claim(str(reply.get("output", "")), get_settings().answer.max_claim_chars)
    except InputError as e:
        await cl.Message(content=t("⚠️ Claim {n} is unchanged: {why}.", n=row.n, why=md(str(e)))).send()
        return None
    return claim


async def run_checks(check: PassageCheck, deps: Deps) -> None:
    """Every provisional verdict, then every full check, the table updated after each; then the report."""
    table = cl.Message(content=table_markdown(check, done=False))
    await table.send()
    own = [row for row in check.claims if row.same_as is None]
    async with queue_slot():
        for row in own:
            await asyncio.to_thread(provisional, row, deps)
            table.content = table_markdown(check, done=False)
            await table.update()
    rows: dict[str, int] = {}  # row n -> the index of its check in the thread's results
    # follow-ups are about the newest check (the last row's, as they come) until the user opens a row, even while
    # the later rows are still being checked
    await add_to_thread(_thread(), {"focus": -1})
    for row in own + [row for row in check.claims if row.same_as is not None]:  # a shared check exists first
        async with queue_slot():  # without a working LLM the check still ends, as a single one does, with a note
            await asyncio.to_thread(finish, row, check, deps)
        if row.result is not None:
            kept = row.result.model_dump(mode="json")
            values = await add_to_thread(_thread(), {"results": [kept]})
            rows[str(row.n)] = len(values["results"]) - 1
            await remember(kept, _thread())  # a later claim finds this row's check (ui.chat.earlier_view)
        table.content = table_markdown(check, done=False)
        await replace_actions(table, open_actions(check, rows))
        await table.update()
    # each row's full check is in `results` already: the stored passage points to it instead of holding a copy
    stored = {"check": check.model_dump(mode="json", exclude={"claims": {"__all__": {"result"}}}), "rows": rows}
    values = await add_to_thread(_thread(), {"passages": [stored]})
    index = len(values["passages"]) - 1
    table.content = table_markdown(check, done=True)
    table.metadata = {PASSAGE_TAG: index}
    await replace_actions(table, passage_actions(stored, index))
    await table.update()
    await cl.Message(content=report_markdown(check)).send()


def open_actions(check: PassageCheck, rows: dict[str, int]) -> list[cl.Action]:
    """A button per checked row that opens its full check (a near-duplicate opens the check it shares)."""
    actions = []
    for row in check.claims:
        index = rows.get(str(row.n if row.same_as is None else row.same_as))
        if index is not None:
            actions.append(cl.Action(name=OPEN, label=t("Open claim {n}", n=row.n),
                                     payload={"result": index, "n": row.n}))
    return actions


def passage_actions(stored: dict[str, Any], index: int) -> list[cl.Action]:
    """The buttons under a checked passage's table: open each claim's check, export the whole passage."""
    check = PassageCheck.model_validate(stored["check"])
    return [
        *open_actions(check, stored["rows"]),
        cl.Action(name=EXPORT, label=t("Export the passage"), icon="download", payload={"passage": index},
                  tooltip=t("Download the passage's check as Markdown, JSON, BibTeX and RIS")),
    ]


@cl.action_callback(OPEN)
async def on_open(action: cl.Action) -> None:
    """Show a row's full check; follow-ups are about it from now on."""
    index, n = action.payload.get("result"), action.payload.get("n")
    results = (await thread_values(_thread())).get("results", [])
    if not isinstance(index, int) or not 0 <= index < len(results):
        await cl.Message(content=t("⚠️ That check is no longer in this thread.")).send()
        return
    await add_to_thread(_thread(), {"focus": index})
    claim = results[index].get("claim", "")
    note = written("claim {n} of the passage, “{claim}”: your follow-up questions are now about this claim", n=n,
                   claim=claim)
    await send_answer(results[index], index, [note])


@cl.action_callback(EXPORT)
async def on_export_passage(action: cl.Action) -> None:
    index = action.payload.get("passage")
    values = await thread_values(_thread())
    passages, results = values.get("passages", []), values.get("results", [])
    if not isinstance(index, int) or not 0 <= index < len(passages):
        await cl.Message(content=t("⚠️ That passage is no longer in this thread.")).send()
        return
    check = stored_passage(passages[index], results)
    files = format_files(lambda fmt: f"claimtrace-passage.{fmt}", lambda fmt: export_passage(check, fmt))
    await cl.Message(content=t("**Export** of the passage: a Markdown report, the whole check as JSON, and the "
                               "papers of all its claims as BibTeX and RIS:"), elements=files).send()
