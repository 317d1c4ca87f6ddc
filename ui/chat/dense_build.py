"""The dense index finished behind the chat: when `make run` built only the keyword index (`claimtrace index
--keyword-first`), the chat server embeds the rest in a background thread of its own process, so that the checks it
serves search by meaning as soon as the index is whole, without a restart. Checks made meanwhile search by keyword
and say so (tools.index.local.DenseIndexBuilding); the terminal shows the build's progress."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from agent.service import finish_dense_index
from agent.state import Deps

STEP = 10  # the terminal hears of every STEP percent


def progress_printer() -> Callable[[int, int], None]:
    """A progress callback that prints a line at each STEP percent."""
    last = [-STEP]

    def report(done: int, of: int) -> None:
        percent = 100 * done // of
        if percent >= last[0] + STEP or done == of:
            last[0] = percent
            print(f"claimtrace: dense index {done:,} of {of:,} sentences ({percent} %)", file=sys.stderr, flush=True)

    return report


def finish_in_background(deps: Deps) -> threading.Thread | None:
    """Starts the thread that finishes the dense index; None when the index is whole already."""
    building = getattr(deps.index, "dense_building", lambda: None)()
    if building is None:
        return None
    report = progress_printer()

    def run() -> None:
        try:
            if finish_dense_index(deps, report):
                print("claimtrace: the dense index is whole; checks now search by meaning too", file=sys.stderr,
                      flush=True)
        except Exception as e:  # the keyword index still serves; a restart (or claimtrace index) resumes the build
            print(f"claimtrace: the dense index stopped ({type(e).__name__}: {e}); checks search by keyword only "
                  "until `claimtrace index` finishes it", file=sys.stderr, flush=True)

    thread = threading.Thread(target=run, name="dense-index", daemon=True)
    thread.start()
    return thread
