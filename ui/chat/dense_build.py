"""The dense index finished behind the chat: when `make run` built only the keyword index (`claimtrace index
--keyword-first`), the chat server embeds the rest in a background thread of its own process, so that the checks it
serves search by meaning as soon as the index is whole, without a restart. Checks made meanwhile search by keyword
and say so (tools.index.errors.DenseIndexBuilding); the terminal shows the build's progress, and a new chat says how
far it is (``building_line``).

The build holds between batches while a check runs (``busy``): on two cores, embedding beside the LLM slows both, and
the LLM's reading of each paper has a time budget (DIRECTION_SECONDS) that a shared CPU makes run out."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from agent.service import finish_dense_index
from agent.state import Deps

STEP = 10  # the terminal hears of every STEP percent
POLL = 0.25  # seconds between looks at whether the check that holds the build has ended


def progress_printer() -> Callable[[int, int], None]:
    """A progress callback that prints a line at each STEP percent."""
    last = [-STEP]

    def report(done: int, of: int) -> None:
        percent = 100 * done // of
        if percent >= last[0] + STEP or done == of:
            last[0] = percent
            print(f"claimtrace: dense index {done:,} of {of:,} sentences ({percent} %)", file=sys.stderr, flush=True)

    return report


def building_line(deps: Deps) -> str:
    """What a new chat says while the dense index is built; "" once it is whole."""
    building = getattr(deps.index, "dense_building", lambda: None)()
    if building is None:
        return ""
    done, of = building
    return (
        f"🏗️ The search by meaning is still being built ({done:,} of {of:,} sentences, {100 * done // of} %). "
        "Until it is whole, checks search by keywords only and say so in their notes; it goes on between your checks."
    )


def waiting_while(busy: Callable[[], bool]) -> Callable[[], None]:
    """A pause for the build that returns once ``busy()`` is false."""

    def pause() -> None:
        while busy():
            time.sleep(POLL)

    return pause


def finish_in_background(deps: Deps, busy: Callable[[], bool] | None = None) -> threading.Thread | None:
    """Starts the thread that finishes the dense index, holding between batches while ``busy()`` (a check runs);
    None when the index is whole already."""
    building = getattr(deps.index, "dense_building", lambda: None)()
    if building is None:
        return None
    report = progress_printer()
    pause = waiting_while(busy) if busy else None

    def run() -> None:
        try:
            if finish_dense_index(deps, report, pause):
                print("claimtrace: the dense index is whole; checks now search by meaning too", file=sys.stderr,
                      flush=True)
        except Exception as e:  # the keyword index still serves; a restart (or claimtrace index) resumes the build
            print(f"claimtrace: the dense index stopped ({type(e).__name__}: {e}); checks search by keyword only "
                  "until `claimtrace index` finishes it", file=sys.stderr, flush=True)

    thread = threading.Thread(target=run, name="dense-index", daemon=True)
    thread.start()
    return thread
