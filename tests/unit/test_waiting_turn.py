"""A message the server's stop left waiting in the check queue (ui/chat/interrupted.py): it has no checkpoint, so
the restored thread is read for it: its last user message with nothing but the queue's notice after it."""

from __future__ import annotations

from ui.chat.interrupted import running, unanswered, waiting_text
from ui.shared.untrusted import md

CLAIM = "Statins reduce mortality in older adults."


def step(kind: str, output: str) -> dict[str, str]:
    return {"type": kind, "output": output}


def test_the_last_message_waiting_in_the_queue_is_found():
    queued = step("assistant_message", "⏳ Queued: number 3 in line. 2 check(s) run at a time here; ...")
    answered = [step("user_message", "Vitamin D prevents fractures."), step("assistant_message", "**Verdict:** ...")]
    assert unanswered("t1", [*answered, step("user_message", CLAIM), queued]) == CLAIM
    assert unanswered("t1", [step("user_message", CLAIM)]) == CLAIM
    assert unanswered("t1", answered) is None
    assert unanswered("t1", []) is None and unanswered("t1", [step("assistant_message", "Hello")]) is None


def test_a_turn_that_waits_in_this_process_is_not_called_lost():
    with running("t2"):
        assert unanswered("t2", [step("user_message", CLAIM)]) is None
    assert unanswered("t2", [step("user_message", CLAIM)]) == CLAIM


def test_the_notice_shows_the_message_literally():
    shown = waiting_text("**bold** <b>x</b>")
    assert md("**bold** <b>x</b>") in shown and "<b>x" not in shown and "Check it now" in shown
