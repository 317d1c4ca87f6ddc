"""`claimtrace check-text FILE|-` or `--library ID_OR_TITLE`: every checkable claim of a passage (a text file,
standard input, a PDF's text layer, or a document already in the user's library), checked together. The extracted
claims and each provisional verdict go to stderr as they come; the report (the table, the passage with each claim
marked, the citation audit, the sentences not checked) to stdout, or one JSON object with --json. --out writes the
whole check as .md, .json, .bib or .ris. What it prints for a person, and the .md report, speak the passage's language
(--lang to choose another; tools.text.i18n); the JSON speaks English."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agent.errors import EXIT_INPUT, CliError, unavailable_parts
from tools.text.i18n import decimal, speaking, t
from tools.text.language import LANGUAGES
from ui.export.formats import FORMATS

if TYPE_CHECKING:
    from agent.passage.model import PassageClaim


def add_passage_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check-text", help="check every claim of a passage (text file, PDF or - for standard input)")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("source", nargs="?", help="a text or PDF file, or - to read the text from standard input")
    given.add_argument("--library", metavar="ID_OR_TITLE",
                       help="a document of your library (`claimtrace add`): its id, DOI, citation key or title words")
    p.add_argument("--json", action="store_true", help="print the claims and their full checks as one JSON object")
    p.add_argument("--out", type=Path, help="also write the whole check to this file: .md, .json, .bib or .ris")
    p.add_argument("--lang", choices=sorted(LANGUAGES),
                   help="the language of what it prints for a person and of the .md report (default: the passage's)")


def read_text(source: str) -> str:
    """The passage: standard input, a PDF's text layer, or a UTF-8 text file. Raises CliError."""
    from tools.documents.pdf_text import PdfProblem, read_pdf

    if source == "-":
        data = sys.stdin.buffer.read()
        what = "standard input"
    else:
        path = Path(source)
        if not path.is_file():
            raise CliError(f"{source}: no such file", EXIT_INPUT)
        if path.suffix.lower() == ".pdf":
            try:
                return " ".join(read_pdf(path).text.sentences)
            except (PdfProblem, OSError) as e:
                raise CliError(f"{source}: {e}", EXIT_INPUT) from e
        data, what = path.read_bytes(), source
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"{what} is not UTF-8 text (a PDF must end in .pdf)", EXIT_INPUT) from e


def library_text(query: str) -> str:
    """The text of a library document: its sentences, a blank line where its section changes. Raises CliError."""
    from agent.settings.app import get_settings
    from tools.index.local import read_live_docs
    from tools.text.cited import named_document

    try:
        doc = named_document(query, read_live_docs(get_settings().stores.index_dir).values())
    except LookupError as e:
        raise CliError(str(e), EXIT_INPUT) from e
    parts: list[str] = []
    for i, sentence in enumerate(doc.sentences):
        if i and doc.sections and doc.sections[i] != doc.sections[i - 1]:
            parts.append("\n\n")
        elif i:
            parts.append(" ")
        parts.append(sentence)
    return "".join(parts)


def cmd_check_text(args: argparse.Namespace) -> int:
    from agent.passage.check import check_passage, validate_passage
    from agent.passage.foreign import passage_language
    from agent.provenance import run_info
    from agent.service import InputError, load_deps
    from agent.settings.app import get_settings
    from ui.export.passage import export_passage
    from ui.shared.untrusted import plain

    if args.out is not None and args.out.suffix.lstrip(".") not in FORMATS:
        raise CliError(f"--out must end in one of {', '.join('.' + f for f in FORMATS)}", EXIT_INPUT)
    settings = get_settings()
    try:
        raw = library_text(args.library) if args.library else read_text(args.source)
        text, notes = validate_passage(raw, settings.answer.max_passage_chars)
    except InputError as e:
        raise CliError(str(e), EXIT_INPUT) from e

    def progress(kind: str, row: PassageClaim) -> None:
        if args.json:
            return
        if kind == "claim":
            extra = " " + t("(same as claim {n})", n=row.same_as) if row.same_as else ""
            extra += " " + t("(refers back: “{word}”)", word=plain(row.unresolved)) if row.unresolved else ""
            print(t("Claim {n}: {claim}", n=row.n, claim=plain(row.claim)) + extra, file=sys.stderr, flush=True)
        elif kind == "provisional" and row.provisional is not None:
            v = row.provisional
            print(f"  [{row.n}] " + t("provisional: {label} ({confidence})", label=t(v.label),
                                      confidence=decimal(v.confidence)), file=sys.stderr, flush=True)
        elif kind == "result" and row.result is not None and row.result.verdict is not None:
            v = row.result.verdict
            print(f"  [{row.n}] " + t("verdict: {label} ({confidence})", label=t(v.label),
                                      confidence=decimal(v.confidence)), file=sys.stderr, flush=True)

    with speaking("en" if args.json else args.lang or passage_language(text)):
        with unavailable_parts():
            deps = load_deps(settings)
            check = check_passage(text, deps, notes, on_event=progress, run=run_info(deps.settings, deps.llm))
        if args.json:
            print(json.dumps(check.model_dump(mode="json"), ensure_ascii=False))
        else:
            from ui.terminal.readable import print_passage

            print_passage(check)
    if args.out is not None:
        try:
            args.out.write_text(export_passage(check, args.out.suffix.lstrip("."), args.lang), encoding="utf-8")
        except OSError as e:
            raise CliError(f"cannot write {args.out}: {e.strerror}", EXIT_INPUT) from e
        print(f"written to {args.out}", file=sys.stderr)
    return 0
