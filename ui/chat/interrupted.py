"""A check that the server's stop interrupted (a crash, kill -9, a restart during the check).

The thread's checkpoint records it: LangGraph writes the checkpoint of the step that decides on a check while the
check runs (within milliseconds of its start), so a thread whose last checkpoint still has the check as its next
step, and whose check does not run in this process now, was interrupted. On resume the chat says so under what had
finished, and offers to run it again; the re-run continues the thread's run from that checkpoint.

A message that waited for its turn in the check queue when the server stopped has no checkpoint (the thread's run
never started): the restored thread ends with it and nothing answers it but the queue's own notice. On resume the
chat offers to check it now."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import chainlit as cl

from ui.chat.runtime import thread_config
from ui.shared.untrusted import md

RERUN = "rerun_check"
CHECK_WAITING = "check_waiting"
_running: set[str] = set()  # threads whose turn runs, or waits for its turn, in this process now
QUEUE_NOTICE = "Queued: number"  # ui.chat.queued's notice, which is no answer


@contextmanager
def running(thread_id: str) -> Iterator[None]:
    """Mark the thread's turn as running here, so that opening the thread meanwhile does not call it interrupted."""
    _running.add(thread_id)
    try:
        yield
    finally:
        _running.discard(thread_id)


async def interrupted_claim(graph: Any, thread_id: str) -> str | None:
    """The claim whose check the thread started and never finished, or None."""
    if thread_id in _running:
        return None
    snapshot = await graph.aget_state(thread_config(thread_id))
    if "check" not in snapshot.next:
        return None
    return str(snapshot.values.get("query", ""))


def interrupted_notice(claim: str) -> cl.Message:
    return cl.Message(
        content=f"⚠️ The check of “{md(claim)}” was interrupted: the server stopped before it finished. What had "
        "finished is shown above. Press **Re-run the check** to run it again.",
        actions=[cl.Action(name=RERUN, label="Re-run the check", payload={})],
    )


NOTHING_TO_RERUN = "Nothing to re-run: this thread has no interrupted check."


def unanswered(thread_id: str, steps: Sequence[Mapping[str, Any]]) -> str | None:
    """The thread's last user message when nothing but the queue's notice follows it and no turn of the thread runs
    or waits here: the message the server's stop left waiting for its turn. None otherwise."""
    if thread_id in _running:
        return None
    last: str | None = None
    for step in steps:
        if step.get("type") == "user_message":
            last = str(step.get("output") or "")
        elif step.get("type") == "assistant_message" and QUEUE_NOTICE not in str(step.get("output") or ""):
            last = None
    return last or None


def waiting_text(text: str) -> str:
    return (
        f"⚠️ “{md(text)}” was waiting for its turn when the server stopped, and was not checked. Press "
        "**Check it now** to check it."
    )


def waiting_notice(text: str) -> cl.Message:
    return cl.Message(
        content=waiting_text(text),
        actions=[cl.Action(name=CHECK_WAITING, label="Check it now", payload={"text": text})],
    )
