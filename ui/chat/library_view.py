"""The chat's "Your library": the message `/library` (or "your library") lists the documents the index holds
beyond the built corpus (the user's files and the abstracts fetched from live sources), newest first, each with
where it came from, when it was added and how many kept checks cite it, and a **Remove n** button under the list.

A Remove asks first: the document's title, what removing it does and how many kept checks cite it, with **Remove
it** and **Keep it**. Confirmed, the document leaves the index this chat searches, through the index's one
crash-safe removal (tools.index.live_docs); the checks that cite it keep their record (their exports and "why?"
mark it "removed from the library on <day>"). The message is no claim: it is never checked."""

from __future__ import annotations

import asyncio
from typing import Any

import chainlit as cl

from agent.settings.app import Settings, get_settings
from tools.index.kept import came_from, entry
from ui.shared.untrusted import md

COMMANDS = ("/library", "your library")
REMOVE, CONFIRM, KEEP = "library_remove", "library_remove_confirm", "library_keep"
SHOWN = 25  # documents listed with a button; the rest are counted, and `claimtrace library list` lists them all
EMPTY = ("Your library is empty: the index holds no documents beyond the built corpus yet. Add your own papers with "
         "`claimtrace add PATH`.")


def is_library_command(text: str) -> bool:
    return " ".join(text.split()).lower().rstrip(".!?") in COMMANDS


def listing(settings: Settings) -> tuple[list[dict[str, Any]], list[str]]:
    """The kept documents, newest first, as `claimtrace library list --json` gives them plus `from` (where each
    came from, in words); and notes (an unreadable thread store costs the citing counts, with a note)."""
    from agent.store.forget import kept_and_citing

    docs, cited, notes = kept_and_citing(settings)
    return [{**entry(d, cited.get(d.doc_id, [])), "from": came_from(d)} for d in docs[::-1]], notes


def library_markdown(docs: list[dict[str, Any]], notes: list[str]) -> str:
    """The list; every title, file name and search is source or user text: ``md``."""
    if not docs:
        return EMPTY
    lines = [f"**Your library**: {len(docs)} document(s) beyond the built corpus, newest first."]
    for i, d in enumerate(docs[:SHOWN], start=1):
        added = (d["added_at"] or "")[:10] or "an unrecorded day"
        lines.append(f"{i}. {md(d['title'])} — {md(d['from'])}; added {md(added)}; cited by "
                     f"{len(d['cited_by'])} kept check(s); id {md(d['doc_id'])}")
    if len(docs) > SHOWN:
        lines.append(f"_{len(docs) - SHOWN} more: `claimtrace library list` lists them all._")
    return "\n".join([*lines, *(f"_{md(n)}_" for n in notes)])


def remove_actions(docs: list[dict[str, Any]]) -> list[cl.Action]:
    return [cl.Action(name=REMOVE, label=f"Remove {i}", payload={"doc_id": d["doc_id"]},
                      tooltip=f"Remove “{d['title'][:80]}” from the index (you confirm first)")
            for i, d in enumerate(docs[:SHOWN], start=1)]


def confirm_markdown(doc: dict[str, Any]) -> str:
    cited = len(doc["cited_by"])
    return (f"Remove **{md(doc['title'])}** ({md(doc['doc_id'])}) from the index? No later check will find it. "
            f"{cited} kept check(s) cite it; they keep its sentences, marked “removed from the library on <day>”.")


def remove_document(index: Any, doc_id: str) -> str:
    """Remove one kept document from `index` (the chat's loaded index, so that its later checks no longer find
    it); the reply in words. An id of the built corpus or one already gone removes nothing."""
    removed = index.remove_docs([doc_id])
    if not removed:
        return f"{md(doc_id)} is no longer in the index: nothing was removed."
    r = removed[0]
    return (f"Removed **{md(r.title)}** from the index on {md(r.removed_at[:10])}. Checks that cite it keep their "
            "record.")


async def library_turn() -> None:
    docs, notes = await asyncio.to_thread(listing, get_settings())
    await cl.Message(content=library_markdown(docs, notes), actions=remove_actions(docs)).send()


@cl.action_callback(REMOVE)
async def on_remove(action: cl.Action) -> None:
    doc_id = str(action.payload.get("doc_id", ""))
    docs, _ = await asyncio.to_thread(listing, get_settings())
    doc = next((d for d in docs if d["doc_id"] == doc_id), None)
    if doc is None:
        await cl.Message(content=f"{md(doc_id)} is no longer in the index: nothing was removed.").send()
        return
    buttons = [cl.Action(name=CONFIRM, label="Remove it", payload={"doc_id": doc_id}),
               cl.Action(name=KEEP, label="Keep it", payload={"doc_id": doc_id})]
    await cl.Message(content=confirm_markdown(doc), actions=buttons).send()


@cl.action_callback(CONFIRM)
async def on_confirm(action: cl.Action) -> None:
    from ui.chat.runtime import chat_runtime

    await action.remove()
    try:
        index = (await chat_runtime()).deps.index
        reply = await asyncio.to_thread(remove_document, index, str(action.payload.get("doc_id", "")))
    except Exception as e:  # an index that cannot load or a store that fails: one message, the chat goes on
        reply = f"⚠️ The document could not be removed: {md(str(e))}"
    await cl.Message(content=reply).send()


@cl.action_callback(KEEP)
async def on_keep(action: cl.Action) -> None:
    await action.remove()
    await cl.Message(content="Kept: nothing was removed.").send()
