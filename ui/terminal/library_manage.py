"""`claimtrace library list|remove|refresh`: what the index holds beyond the built corpus (your library and the
abstracts fetched from live sources), taken out again, and your files read again (tools.index.kept,
docs/library.md).

`list` reads the kept documents' file and the thread store (which kept checks cite each document); `remove` and
`refresh` open the index, whose removal is one step a crash cannot leave half done (tools.index.live_docs). Every
refusal is one line on stderr: exit 2 for an id or filter that names nothing (nothing is removed then), 3 when
there is no index."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import warnings
from datetime import datetime
from typing import Any

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError
from agent.settings.app import Settings, get_settings
from ui.shared.untrusted import plain

EMPTY = "the index holds no documents beyond the built corpus yet (add your own with `claimtrace add`)"
TITLE_WIDTH = 60


def _day(value: str) -> datetime:
    from tools.index.kept import parse_day

    try:
        return parse_day(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date such as 2025-03-01, not {value!r}") from None


def add_library_manage_parser(sub: Any) -> None:
    lib = sub.add_parser("library", help="list, remove or refresh the documents added to the index")
    cmds = lib.add_subparsers(dest="library_command", required=True)
    ls = cmds.add_parser("list", help="every document beyond the built corpus: your files and fetched abstracts")
    ls.add_argument("--json", action="store_true", help="print one JSON object")
    rm = cmds.add_parser("remove", help="take documents out of the index (BM25, Chroma and the kept copy)")
    rm.add_argument("ids", nargs="*", metavar="ID", help="document ids (see `claimtrace library list`)")
    rm.add_argument("--source", help="every document from this source: library, europepmc, pubmed, openalex, s2")
    rm.add_argument("--added-before", type=_day, metavar="DATE", help="every document added before DATE (UTC)")
    cmds.add_parser("refresh", help="read your changed files again and drop the documents of files that are gone")


def _open_index(settings: Settings) -> Any:
    from tools.index.errors import IndexMissingError
    from tools.index.local import CorpusIndex

    # Chroma cannot rebuild claimtrace's embedding function from a stored collection; the index passes its own
    warnings.filterwarnings("ignore", message="Could not reconstruct embedding function", category=UserWarning)
    try:
        return CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    except IndexMissingError as e:
        raise CliError(str(e), EXIT_UNAVAILABLE) from e


def _cited(settings: Settings) -> dict[str, list[str]]:
    """Which kept checks cite each document; an unreadable thread store costs the column, with a warning."""
    from agent.store.forget import citing_threads
    from ui.terminal.export import STORE_ERRORS, _reason

    try:
        return citing_threads(settings)
    except STORE_ERRORS as e:
        print(f"claimtrace: warning: which checks cite a document is unknown ({_reason(e)})", file=sys.stderr)
        return {}


def cmd_list(settings: Settings, as_json: bool) -> int:
    from tools.index.kept import came_from, entry, kept_documents
    from tools.index.manifest import read_manifest

    if read_manifest(settings.stores.index_dir) is None:
        raise CliError(f"no index at {settings.stores.index_dir}: run `claimtrace index` first", EXIT_UNAVAILABLE)
    docs = kept_documents(settings.stores.index_dir)
    cited = _cited(settings) if docs else {}
    if as_json:
        print(json.dumps({"documents": [entry(d, cited.get(d.doc_id, [])) for d in docs]}, ensure_ascii=False))
        return 0
    if not docs:
        print(f"claimtrace: {EMPTY}", file=sys.stderr)
        return 0
    print(f"{'ID':<40}  {'ADDED (UTC)':<16}  {'CITED':>5}  TITLE — FROM")
    for d in docs:
        added = (d.origin.added_at or "")[:16].replace("T", " ") if d.origin else ""
        title = plain(d.title)
        title = title if len(title) <= TITLE_WIDTH else title[: TITLE_WIDTH - 1] + "…"
        print(f"{plain(d.doc_id):<40}  {added or 'unknown':<16}  {len(cited.get(d.doc_id, [])):>5}  "
              f"{title} — {plain(came_from(d))}")
    return 0


def cmd_remove(settings: Settings, args: argparse.Namespace) -> int:
    from tools.index.kept import UnknownDocument, choose

    if not (args.ids or args.source or args.added_before):
        raise CliError("name the documents to remove: ID..., --source NAME or --added-before DATE", EXIT_INPUT)
    if args.ids and (args.source or args.added_before):
        raise CliError("give ids, or --source / --added-before, not both", EXIT_INPUT)
    index = _open_index(settings)
    kept = [d for d in index.docs.values() if d.source is not None]
    try:
        chosen = choose(kept, args.ids, args.source, args.added_before, corpus_ids=index.docs.keys())
    except UnknownDocument as e:
        raise CliError(str(e), EXIT_INPUT) from e
    if not chosen:
        raise CliError("no kept document matches that (`claimtrace library list` lists them)", EXIT_INPUT)
    removed = index.remove_docs([d.doc_id for d in chosen])
    for r in removed:
        print(f"removed {plain(r.doc_id)}: {plain(r.title)}")
    print(f"{len(removed)} document(s) removed from the index", file=sys.stderr)
    return 0


def cmd_refresh(settings: Settings) -> int:
    from tools.index.kept import refresh_library

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # a damaged PDF is one line of ours, not pypdf's log
    index = _open_index(settings)
    report = refresh_library(index, on_problem=lambda line: print(f"claimtrace library: {plain(line)}",
                                                                  file=sys.stderr))
    print(plain(report.summary()))
    return EXIT_INPUT if report.kept else 0


def cmd_library(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.library_command == "list":
        return cmd_list(settings, args.json)
    if args.library_command == "remove":
        return cmd_remove(settings, args)
    return cmd_refresh(settings)
