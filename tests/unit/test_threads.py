"""The thread store outside the chat (agent.store.threads): listing threads, reading a thread's checks, and a CLI check
kept as a thread that the thread graph reads like one of its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent.followup.graph import build_thread_graph
from agent.settings.app import Settings
from agent.store.checkpoint import SQLITE_NAME, close_checkpointer, open_checkpointer
from agent.store.threads import ThreadNotFoundError, checks_of, keep_check, resolve_thread, save_check, threads


def check(claim: str) -> dict[str, Any]:
    return {"claim": claim, "sources": [], "sentences": []}


def test_an_empty_store_lists_nothing_and_is_not_created(settings: Settings):
    assert threads(settings) == []
    with pytest.raises(ThreadNotFoundError, match="the thread store is empty"):
        checks_of(settings, "abcd")
    assert not (settings.stores.data_dir / SQLITE_NAME).exists()


def test_kept_checks_are_listed_newest_first(settings: Settings):
    first = keep_check(settings, check("Coffee prevents liver fibrosis."))
    second = keep_check(settings, check("Sleep protects cognition."))
    found = threads(settings)
    assert [(s.thread_id, s.checks, s.claim) for s in found] == [
        (second, 1, "Sleep protects cognition."),
        (first, 1, "Coffee prevents liver fibrosis."),
    ]
    assert found[0].updated_at > found[1].updated_at
    assert checks_of(settings, first[:8]) == (first, [check("Coffee prevents liver fibrosis.")])
    with pytest.raises(ThreadNotFoundError, match="no thread 'nope'"):
        checks_of(settings, "nope")


def test_a_kept_check_is_a_finished_thread_of_the_thread_graph(settings: Settings):
    async def scenario() -> tuple[Any, list[str], str]:
        saver = await open_checkpointer(settings)
        try:
            await save_check(saver, check("A causes B."), thread_id="abcd-1")
            await save_check(saver, check("C causes D."), thread_id="abcd-1")  # a second check in the same thread
            await save_check(saver, check("E causes F."), thread_id="abcd-2")
            snapshot = await build_thread_graph(saver).aget_state({"configurable": {"thread_id": "abcd-1"}})
            errors = []
            for wanted in ("abcd", "abc"):
                try:
                    await resolve_thread(saver, wanted)
                except ThreadNotFoundError as e:
                    errors.append(str(e))
            return snapshot, errors, await resolve_thread(saver, "abcd-2")
        finally:
            await close_checkpointer(saver)

    snapshot, errors, resolved = asyncio.run(scenario())
    assert snapshot.next == ()  # nothing left to run: a chat follow-up starts a new turn
    assert [r["claim"] for r in snapshot.values["results"]] == ["A causes B.", "C causes D."]
    assert snapshot.values["reply"] == {"kind": "check", "claim": "C causes D."}
    assert errors == ["2 threads start with 'abcd'; give more of the id",
                      "no thread 'abc' in the thread store (`claimtrace threads` lists them)"]
    assert resolved == "abcd-2"
    listed = {s.thread_id: (s.checks, s.claim) for s in threads(settings)}
    assert listed == {"abcd-1": (2, "C causes D."), "abcd-2": (1, "E causes F.")}
