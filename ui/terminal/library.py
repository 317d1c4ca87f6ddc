"""`claimtrace add PATH...`: the user's own PDFs, BibTeX and RIS files and Zotero exports into the index, searched
with `--sources library` (tools.documents.library, docs/library.md).

Files and folders (recursively). While it reads, a progress bar on stderr (on a terminal); each file or entry it
cannot use is one line on stderr naming it and saying why; then one summary line on stdout. The exit code is 0
when anything was added or everything was already there, 2 when nothing could be added, 3 when there is no index
to add to."""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path
from typing import Any

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError


def add_library_parser(sub: Any) -> None:
    add = sub.add_parser(
        "add", help="add your own PDFs, BibTeX/RIS files or a Zotero export to the index (`ask --sources library`)"
    )
    add.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="a .pdf, .bib or .ris file, or a folder holding them"
    )


def cmd_add(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agent.settings.app import get_settings
    from tools.documents.library import SUFFIXES, AddReport, LibraryStoreError, add_to_library, plan
    from tools.index.errors import IndexMissingError
    from tools.index.local import CorpusIndex
    from ui.shared.untrusted import plain

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)  # a damaged PDF is one line of ours, not pypdf's log
    # Chroma cannot rebuild claimtrace's embedding function from a stored collection; the index passes its own
    warnings.filterwarnings("ignore", message="Could not reconstruct embedding function", category=UserWarning)
    settings = get_settings()
    items, problems = plan(args.paths)
    if not items and not problems:
        where = ", ".join(plain(p) for p in args.paths)
        raise CliError(f"no {', '.join(SUFFIXES)} file in {where}", EXIT_INPUT)

    def say(line: str) -> None:
        tqdm.write(f"claimtrace add: {plain(line)}", file=sys.stderr)

    if items:
        try:
            index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
        except IndexMissingError as e:
            raise CliError(str(e), EXIT_UNAVAILABLE) from e
        bar = tqdm(total=len(items), desc="adding", unit="doc", file=sys.stderr, disable=None)
        try:
            report = add_to_library(index, items, problems, on_done=lambda: bar.update(1), on_problem=say)
        except LibraryStoreError as e:
            raise CliError(str(e), EXIT_UNAVAILABLE) from e
        finally:
            bar.close()
    else:
        report = AddReport(skipped=list(problems))
        for what, why in problems:
            say(f"skipped {what}: {why}")
    print(plain(report.summary()))
    return EXIT_INPUT if not report.added and report.skipped else 0
