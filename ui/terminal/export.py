"""`claimtrace threads` and `claimtrace export`: the checks kept in the thread store (the chat's threads, and each
`claimtrace ask`, kept as a thread of its own) listed, one exported as Markdown, JSON, BibTeX or RIS, and one
deleted for good (`threads delete`: its checkpoints, its chat messages and its feedback).

Every failure (no such thread, an empty store, a check number out of range, an --out that cannot be written) ends
with one line on stderr and an exit code, like every `claimtrace` command."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError
from agent.settings.app import Settings, get_settings
from agent.store.checkpoint import CheckpointUnavailableError
from agent.store.threads import ThreadNotFoundError, ThreadSummary, checks_of, keep_check, threads
from tools.text.language import LANGUAGES
from ui.shared.untrusted import plain

if TYPE_CHECKING:  # the result model and the writers load LangChain: only `export` needs them
    from agent.result import CheckResult

FORMATS = ("md", "json", "bib", "ris")  # ui.export.formats.FORMATS, named here so that the parser does not load it
CLAIM_WIDTH = 70  # characters of the latest claim shown per thread
EMPTY = "the thread store holds no checks yet: check a claim with `claimtrace ask` or in the chat first"


def at_least_one(value: str) -> int:
    """An argparse type: a whole number of at least 1 (`index --limit`, `export --check`)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, not {number}")
    return number


def add_export_parsers(sub: Any) -> None:
    """Add `threads` and `export` to the `claimtrace` subcommands."""
    listed = sub.add_parser("threads", help="list the kept checks' threads (chat threads and `ask` runs), newest first")
    delete = listed.add_subparsers(dest="threads_command").add_parser(
        "delete", help="delete a thread for good: its checks, its chat messages and its feedback"
    )
    delete.add_argument("thread", help="thread id, or a unique start of one (see `claimtrace threads`)")
    ex = sub.add_parser("export", help="export a kept check as Markdown, JSON, BibTeX or RIS")
    ex.add_argument("thread", nargs="?", help="thread id, or a unique start of one (see `claimtrace threads`)")
    ex.add_argument("--last", action="store_true", help="the most recently updated thread that holds a check")
    ex.add_argument("--check", type=at_least_one, metavar="K", help="the thread's K-th check (default: its latest)")
    ex.add_argument("--format", required=True, choices=list(FORMATS), help="md, json, bib or ris")
    ex.add_argument("--out", type=Path, help="output file (default: standard output)")
    ex.add_argument("--lang", choices=sorted(LANGUAGES),
                    help="the language of the Markdown report's fixed words (default: the language the claim came in)")


def _reason(e: Exception) -> str:
    """Why the store failed, on one line (psycopg's messages run over several)."""
    return " ".join((e.strerror if isinstance(e, OSError) and e.strerror else str(e)).split())


def _store_errors(e: Exception) -> CliError:
    if isinstance(e, ThreadNotFoundError):
        return CliError(str(e), EXIT_INPUT)
    return CliError(f"cannot read the thread store: {_reason(e)}", EXIT_UNAVAILABLE)


STORE_ERRORS = (ThreadNotFoundError, CheckpointUnavailableError, sqlite3.Error, OSError)


def _date(summary: ThreadSummary) -> str:
    return summary.updated_at[:16].replace("T", " ")


def cmd_delete_thread(settings: Settings, wanted: str) -> int:
    """Chainlit's records of the thread first, then its checkpoints and feedback, then the files its chat sessions
    wrote: a delete a crash stops half way leaves the checkpoints, which name the thread for a second `threads
    delete`."""
    from agent.store.forget import delete_thread, resolve
    from ui.chat.launch import app_root
    from ui.chat.persistence import delete_chat_rows, thread_in_chat
    from ui.chat.session_files import delete_thread_files

    try:
        thread_id = resolve(settings, wanted)
        if thread_id is None and thread_in_chat(settings, wanted):
            thread_id = wanted
        if thread_id is None:
            raise ThreadNotFoundError(f"no thread {wanted!r} in the thread store (`claimtrace threads` lists them)")
        rows = delete_chat_rows(settings, thread_id)
        forgotten = delete_thread(settings, thread_id)
        delete_thread_files(app_root(settings), thread_id)
    except STORE_ERRORS as e:
        raise _store_errors(e) from e
    print(f"deleted thread {thread_id}: its checks, {rows} chat record(s) and {forgotten.feedback_rows} feedback "
          "record(s)", file=sys.stderr)
    return 0


def cmd_threads(args: argparse.Namespace) -> int:
    settings = get_settings()
    if getattr(args, "threads_command", None) == "delete":
        return cmd_delete_thread(settings, args.thread)
    try:
        found = threads(settings)
    except STORE_ERRORS as e:
        raise _store_errors(e) from e
    if not found:
        print(f"claimtrace: {EMPTY}", file=sys.stderr)
        return 0
    print(f"{'ID':<36}  {'UPDATED (UTC)':<16}  {'CHECKS':>6}  LATEST CLAIM")
    for s in found:
        claim = plain(s.claim) or "(no check)"
        claim = claim if len(claim) <= CLAIM_WIDTH else claim[: CLAIM_WIDTH - 1] + "…"
        print(f"{s.thread_id:<36}  {_date(s):<16}  {s.checks:>6}  {claim}")
    return 0


def _last_thread(settings: Settings) -> str:
    found = next((s for s in threads(settings) if s.checks), None)
    if found is None:
        raise CliError(EMPTY, EXIT_UNAVAILABLE)
    return found.thread_id


def chosen_check(settings: Settings, thread: str | None, last: bool, k: int | None) -> CheckResult:
    """The check `export` is asked for; CliError when there is none."""
    from pydantic import ValidationError

    from agent.result import CheckResult

    if (thread is None) == (not last):
        raise CliError("name a thread id or give --last, not both (see `claimtrace threads`)", EXIT_INPUT)
    try:
        thread_id, results = checks_of(settings, _last_thread(settings) if last else str(thread))
    except STORE_ERRORS as e:
        raise _store_errors(e) from e
    if not results:
        raise CliError(f"thread {thread_id} holds no check to export", EXIT_INPUT)
    k = k or len(results)
    if k > len(results):
        raise CliError(f"thread {thread_id} holds {len(results)} check(s); --check must be 1 to {len(results)}",
                       EXIT_INPUT)
    try:
        return CheckResult.model_validate(results[k - 1])
    except ValidationError as e:
        raise CliError(f"check {k} of thread {thread_id} cannot be read: {e.error_count()} invalid field(s)",
                       EXIT_UNAVAILABLE) from e


def cmd_export(args: argparse.Namespace) -> int:
    from tools.index.live_docs import removed_days
    from ui.export.formats import export_text

    settings = get_settings()
    result = chosen_check(settings, args.thread, args.last, args.check)
    text = export_text(result, args.format, removed_days(settings.stores.index_dir), args.lang)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise CliError(f"cannot write {args.out}: {e.strerror or e}", EXIT_INPUT) from e
    print(f"{args.format} export of {plain(result.claim)!r} written to {args.out}", file=sys.stderr)
    return 0


def keep_cli_check(settings: Settings, result: dict[str, Any]) -> str | None:
    """Keep the result of `claimtrace ask` as a thread and name it on stderr; returns its id. A store that cannot
    take it costs a warning (and None), never the check that was just printed."""
    try:
        thread_id = keep_check(settings, result)
    except (CheckpointUnavailableError, sqlite3.Error, OSError) as e:
        print(f"claimtrace: warning: this check was not kept in the thread store ({_reason(e)})", file=sys.stderr)
        return None
    print(f"Kept as thread {thread_id} (`claimtrace export {thread_id} --format md`)", file=sys.stderr)
    return thread_id
