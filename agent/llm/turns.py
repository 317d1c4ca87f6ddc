"""Whose turn it is at the LLM in this process: a check reading its papers goes first.

The embedded LLM answers one request at a time, and the judge's reading of a check's papers has a time budget
(DIRECTION_SECONDS) that starts with its turn. Two checks reading at once would each spend the other's seconds, and a
check whose answer is being written while another reads would spend the reader's. So:

* ``reading()``: one check at a time reads; it starts once the LLM calls already under way have ended, so its
  seconds are its own;
* every other LLM call (``agent.llm.calls.invoke``: answers, sentence checks, rewrites, the follow-up router) waits
  while a check reads or waits to read, and never holds a reader up for more than the call already in flight.

A call made by the reading thread itself is part of the reading and never waits.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class LLMTurns:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._reader: int | None = None  # the thread reading, when one is
        self._readers_waiting = 0
        self._calls = 0  # other calls under way

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the LLM for one check's reading of its papers."""
        me = threading.get_ident()
        with self._cond:
            self._readers_waiting += 1
            try:
                self._cond.wait_for(lambda: self._reader is None and self._calls == 0)
            finally:
                self._readers_waiting -= 1
            self._reader = me
        try:
            yield
        finally:
            with self._cond:
                self._reader = None
                self._cond.notify_all()

    @contextmanager
    def call(self) -> Iterator[None]:
        """One LLM call that is not a check's reading: it waits while a check reads or waits to read."""
        me = threading.get_ident()
        with self._cond:
            own = self._reader == me  # the reading's own call
            if not own:
                self._cond.wait_for(lambda: self._reader is None and self._readers_waiting == 0)
                self._calls += 1
        if own:
            yield
            return
        try:
            yield
        finally:
            with self._cond:
                self._calls -= 1
                self._cond.notify_all()


TURNS = LLMTurns()
