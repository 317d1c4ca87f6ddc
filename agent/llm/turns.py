"""Whose turn it is at the LLM: a check reading its papers goes first.

The embedded LLM answers one request at a time, and the judge's reading of a check's papers has a time budget
(DIRECTION_SECONDS) that starts with its turn. Two checks reading at once would each spend the other's seconds, and a
check whose answer is being written while another reads would spend the reader's. So, with ``parallel`` the requests
the LLM runs at once (LLM_PARALLEL: 1 for the embedded model, more for a batching server):

* ``reading()``: at most ``parallel`` checks read at once; a reading starts once it would not share the LLM with
  more than ``parallel`` requests (for one at a time: once the calls already under way have ended), so its seconds
  are its own;
* every other LLM call (``agent.llm.calls.invoke``: answers, sentence checks, rewrites, the follow-up router) waits
  while a check waits to read or ``parallel`` checks read, and never holds a reader up for more than the calls
  already in flight.

A call made by a reading thread itself is part of the reading and never waits.

``others_waiting()`` says whether anyone waits for the LLM meanwhile, or for a check of their own to start (a queue
the chat registers with ``count_also``): a check's reading budget binds only then, so that on an idle machine no paper
goes unread for lack of time (agent/nodes/judge_sources.py).

These turns are this process's; with DATABASE_URL and an LLM server (LLM_BASE_URL), the same rule holds across every
instance that names that server too (tools.admission): each turn, once this process grants it, also takes a row
of the shared table and waits for the server's turn there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from agent.llm.client import LLMUnavailableError
from agent.settings.app import Settings, get_settings
from tools.admission import POLL_S, AdmissionUnavailableError, SharedAdmission, place, shared_admission, turn_rule

OPENAI_API = "https://api.openai.com/v1"


def llm_server(settings: Settings) -> str | None:
    """The LLM server every instance naming it shares (LLM_BASE_URL, or OpenAI's API), or None for a model of this
    process's own (embedded, scripted)."""
    if settings.llm.resolved_provider() != "openai":
        return None
    return (settings.llm.base_url or OPENAI_API).rstrip("/")


class SharedTurns:
    """The turns of one LLM server across instances: rows `read` and `call` of the shared admission table."""

    def __init__(self, admission: SharedAdmission, server: str, parallel: int) -> None:
        self.admission, self.server, self.rule = admission, server, turn_rule(parallel)

    def waiting(self) -> int:
        """Rows of every instance waiting for this server: readings, calls and queued checks."""
        return self.admission.waiting(self.server)

    @contextmanager
    def turn(self, kind: str) -> Iterator[None]:
        try:
            row = self.admission.enter(self.server, kind)
            while (at := place(self.admission.decide(self.server, self.rule), row, kind)) != 0:
                if at is None:  # swept while this process's connection was lost: back in line
                    row = self.admission.enter(self.server, kind)
                    continue
                time.sleep(POLL_S)
        except AdmissionUnavailableError as e:
            raise LLMUnavailableError(f"the LLM's turn could not be taken ({e})") from e
        try:
            yield
        finally:
            with suppress(AdmissionUnavailableError):  # a lost connection frees the row by itself
                self.admission.leave(self.server, row)


class LLMTurns:
    def __init__(self, parallel: int = 1, shared: SharedTurns | None = None, from_settings: bool = False) -> None:
        self.parallel, self.shared = parallel, shared
        self._from_settings = from_settings  # read LLM_PARALLEL and DATABASE_URL at first use
        self._cond = threading.Condition()
        self._readers: set[int] = set()  # the threads reading
        self._readers_waiting = 0
        self._calls = 0  # other calls under way
        self._calls_waiting = 0
        self._also: list[Callable[[], int]] = []  # how many wait elsewhere for this LLM (the chat's check queue)

    def _setup(self) -> None:
        if not self._from_settings:
            return
        with self._cond:
            if self._from_settings:
                settings = get_settings()
                self.parallel = settings.llm.parallel
                server, url = llm_server(settings), settings.stores.database_url
                if server and url:
                    self.shared = SharedTurns(shared_admission(url), server, self.parallel)
                self._from_settings = False

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the LLM for one check's reading of its papers."""
        self._setup()
        me = threading.get_ident()
        with self._cond:
            self._readers_waiting += 1
            try:
                self._cond.wait_for(lambda: len(self._readers) + self._calls < self.parallel)
                self._readers.add(me)
            finally:
                self._readers_waiting -= 1
        try:
            if self.shared is None:
                yield
            else:
                with self.shared.turn("read"):
                    yield
        finally:
            with self._cond:
                self._readers.discard(me)
                self._cond.notify_all()

    def count_also(self, waiting: Callable[[], int]) -> None:
        """Count ``waiting()`` (how many wait for a check of their own to start) among those who wait."""
        self._also.append(waiting)

    def others_waiting(self) -> bool:
        """Whether a check's reading or another LLM call waits for its turn, in this process or, with shared turns,
        in any instance naming the same LLM server. A shared table that cannot be read counts as someone waiting:
        the reading then keeps to its budget."""
        self._setup()
        with self._cond:
            if self._readers_waiting or self._calls_waiting:
                return True
        if any(waiting() > 0 for waiting in self._also):
            return True
        if self.shared is None:
            return False
        try:
            return self.shared.waiting() > 0
        except AdmissionUnavailableError:
            return True

    @contextmanager
    def call(self) -> Iterator[None]:
        """One LLM call that is not a check's reading: it waits while a check waits to read or every reading turn
        is taken."""
        self._setup()
        me = threading.get_ident()
        with self._cond:
            own = me in self._readers  # the reading's own call
            if not own:
                self._calls_waiting += 1
                try:
                    self._cond.wait_for(lambda: self._readers_waiting == 0 and len(self._readers) < self.parallel)
                finally:
                    self._calls_waiting -= 1
                self._calls += 1
        if own:
            yield
            return
        try:
            if self.shared is None:
                yield
            else:
                with self.shared.turn("call"):
                    yield
        finally:
            with self._cond:
                self._calls -= 1
                self._cond.notify_all()


TURNS = LLMTurns(from_settings=True)
