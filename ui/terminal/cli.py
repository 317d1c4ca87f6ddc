"""`claimtrace` command line: ask (ui/terminal/ask.py), index, model, ui, feedback export, threads, export
(ui/terminal/export.py), add (ui/terminal/library.py), library (ui/terminal/library_manage.py), check-text
(ui/terminal/passage.py), mcp (ui/terminal/mcp.py), migrate (ui/terminal/migrate.py), llm-server
(ui/terminal/llm_server.py).

Every failure the user can cause or meet (bad input, missing index, dead LLM) ends with one clear line on stderr
and a non-zero exit code, never a traceback. CLAIMTRACE_DEBUG=1 shows tracebacks of unexpected errors.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import NoReturn

from agent.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_UNAVAILABLE, CliError
from agent.settings.app import SettingsError
from evals.scifact.cli import add_eval_parser, cmd_eval
from tools.text.language import LANGUAGES
from ui.terminal.ask import cmd_ask
from ui.terminal.export import add_export_parsers, at_least_one, cmd_export, cmd_threads
from ui.terminal.library import add_library_parser, cmd_add
from ui.terminal.library_manage import add_library_manage_parser, cmd_library
from ui.terminal.llm_server import add_llm_server_parser, cmd_llm_server
from ui.terminal.mcp import add_mcp_parser, cmd_mcp
from ui.terminal.migrate import add_migrate_parser, cmd_migrate
from ui.terminal.passage import add_passage_parser, cmd_check_text


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see `claimtrace --help`)", EXIT_INPUT)



def http_url(value: str) -> str:
    """An argparse type: an http(s) URL with a host and no user name or password (`index --chroma-url`)."""
    from tools.config import check_http_url

    try:
        return check_http_url(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None

def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="claimtrace", description="Check scientific claims against the literature.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ask = sub.add_parser("ask", help="check one claim")
    ask.add_argument("claim", help="the claim, or - to read it from standard input")
    ask.add_argument("--json", action="store_true", help="print the full result as one JSON object")
    ask.add_argument(
        "--fresh",
        action="store_true",
        help="check it now even when the same claim, or its opposite, was checked before (EARLIER_CHECKS)",
    )
    ask.add_argument(
        "--lang",
        choices=sorted(LANGUAGES),
        help="the language of what it prints for a person (default: the claim's; the JSON is in English)",
    )
    ask.add_argument(
        "--english",
        metavar="TEXT",
        help="for a claim in another language, your own English for it: checked instead of the LLM's translation",
    )
    ask.add_argument(
        "--sources",
        metavar="LIST",
        help="where to search: auto (default: the local index, your library and every reachable live source), all, "
        "or a comma list of local, library, europepmc, pubmed, openalex, s2 (default from SOURCES)",
    )

    ask.add_argument(
        "--search-rounds",
        type=int,
        choices=range(0, 6),
        metavar="N",
        help="search again, up to N times, when the evidence is thin (default from SEARCH_ROUNDS: 0)",
    )

    index = sub.add_parser("index", help="build the local index (skipped when up to date)")
    index.add_argument("--corpus", type=Path, help="corpus.jsonl (SciFact or BEIR) or a folder holding one")
    index.add_argument("--limit", type=at_least_one, help="index only the first N abstracts")
    index.add_argument("--force", action="store_true", help="rebuild even when up to date")
    index.add_argument("--keyword-first", action="store_true",
                       help="build only the keyword index now; the chat (claimtrace ui) embeds the rest behind it")
    index.add_argument("--chroma-url", type=http_url,
                       help="build the dense index into this Chroma server (default: CHROMA_URL)")

    sub.add_parser("model", help="assemble and verify the embedded LLM, export the CPU models to ONNX (done once)")

    ui = sub.add_parser("ui", help="serve the chat UI (Chainlit)")
    ui.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    ui.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")

    feedback = sub.add_parser("feedback", help="user feedback on verification")
    fb_sub = feedback.add_subparsers(dest="feedback_command", required=True, parser_class=_Parser)
    export = fb_sub.add_parser("export", help="write every feedback record as JSONL")
    export.add_argument("--out", type=Path, help="output file (default: standard output)")
    add_eval_parser(sub)
    add_export_parsers(sub)
    add_library_parser(sub)
    add_library_manage_parser(sub)
    add_passage_parser(sub)
    add_mcp_parser(sub)
    add_migrate_parser(sub)
    add_llm_server_parser(sub)
    return p


def cmd_index(args: argparse.Namespace) -> int:
    from agent.service import use_settings
    from agent.settings.app import get_settings
    from tools.corpus import CorpusError, resolve_corpus_path
    from tools.index.build import build_index
    from tools.index.errors import IndexMissingError
    from tools.index.manifest import dense_left

    settings = get_settings()
    if args.chroma_url is not None:
        settings = settings.with_values(stores={"chroma_url": args.chroma_url})
    use_settings(settings)
    try:
        corpus = resolve_corpus_path(
            args.corpus or settings.stores.corpus_path,
            settings.stores.corpus_mirror,
            settings.stores.data_dir,
            settings.stores.corpus_url,
        )
        manifest = build_index(
            corpus,
            settings.stores.index_dir,
            chroma_url=settings.stores.chroma_url,
            limit=args.limit,
            force=args.force,
            on_problem=lambda msg: print(f"warning: {msg}", file=sys.stderr),
            dense=not args.keyword_first,
        )
    except (CorpusError, IndexMissingError) as e:
        raise CliError(str(e), EXIT_UNAVAILABLE) from e
    state = "up to date" if manifest.get("reused") else f"built in {manifest['build_seconds']} s"
    if (left := dense_left(manifest)) is not None:
        state = f"keyword index built ({left[0]:,} of {left[1]:,} sentences embedded; the chat embeds the rest)"
    print(
        f"index {state}: {manifest['docs']} abstracts, {manifest['sentences']} sentences "
        f"({manifest['skipped_lines']} malformed line(s) skipped) at {settings.stores.index_dir}"
    )
    return 0


def cmd_model(args: argparse.Namespace) -> int:
    from agent.llm.client import LLMUnavailableError, ensure_gguf
    from agent.service import use_settings
    from agent.settings.app import get_settings
    from tools.models.onnx_models import export_all

    try:
        settings = get_settings()
        use_settings(settings)
        path = ensure_gguf(settings.stores.model_dir)
    except LLMUnavailableError as e:
        raise CliError(str(e), EXIT_UNAVAILABLE) from e
    print(f"embedded model ready (sha256 verified): {path}")
    # the embedder and the two verifiers as ONNX graphs now, so the first check does not wait for their export
    for onnx_path in export_all():
        print(f"ONNX model ready: {onnx_path}")
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    from agent.settings.app import get_settings
    from agent.store.postgres import DatabaseUnavailableError
    from tools.files import storage_problem
    from tools.index.manifest import read_manifest
    from ui.chat import credentials, launch, persistence
    from ui.chat.guard import is_loopback

    settings = get_settings()
    if not 0 < args.port < 65536:
        raise CliError(f"--port must be between 1 and 65535, not {args.port}", EXIT_INPUT)
    if not is_loopback(args.host) and not credentials.password_configured(settings):
        raise CliError(
            f"refusing to listen on {args.host} without a configured password: set CLAIMTRACE_UI_PASSWORD "
            "(environment or .env) to serve the chat beyond this machine",
            EXIT_INPUT,
        )
    if read_manifest(settings.stores.index_dir) is None:
        raise CliError(f"no index at {settings.stores.index_dir}: run `claimtrace index` first", EXIT_UNAVAILABLE)
    try:
        persistence.create_schema(settings)  # DATABASE_URL's tables, before any instance serves
        if credentials.must_generate(settings) and not sys.stderr.isatty():
            raise CliError(
                "no login password is configured and there is no terminal to show a generated one on: set "
                "CLAIMTRACE_UI_PASSWORD, or start `claimtrace ui` once in a terminal",
                EXIT_INPUT,
            )
        env = launch.prepare(settings)
        password = credentials.first_start_password(settings)
    except DatabaseUnavailableError as e:
        raise CliError(f"the chat cannot keep its threads in DATABASE_URL's database: {e}", EXIT_UNAVAILABLE) from e
    except OSError as e:
        why, where = storage_problem(e) or e.strerror, settings.stores.data_dir
        raise CliError(f"the chat cannot keep its threads in {where}: {why}", EXIT_UNAVAILABLE) from e
    argv = launch.command(args.host, args.port)
    print(f"claimtrace chat on http://{args.host}:{args.port} (Ctrl-C stops it)", file=sys.stderr)
    if password is not None:
        print(
            f"Log in as {settings.ui.user!r} with the password {password}\n(shown this once; only its hash is kept, "
            f"in {credentials.where_kept(settings)}: delete it for a new one, or set "
            "CLAIMTRACE_UI_PASSWORD)",
            file=sys.stderr,
        )
    sys.stderr.flush()
    os.execve(argv[0], argv, env)  # Chainlit takes over this process: signals reach it directly


def cmd_feedback(args: argparse.Namespace) -> int:
    from agent.settings.app import get_settings
    from agent.store.feedback import export_jsonl
    from agent.store.postgres import DatabaseUnavailableError

    settings = get_settings()  # DATABASE_URL's Postgres when set, else DATA_DIR's SQLite file
    try:
        if args.out is None:
            export_jsonl(settings, sys.stdout)
            return 0
        with args.out.open("w", encoding="utf-8") as fh:
            count = export_jsonl(settings, fh)
    except DatabaseUnavailableError as e:
        raise CliError(f"cannot read the feedback: {e}", EXIT_UNAVAILABLE) from e
    except OSError as e:
        raise CliError(f"cannot write {args.out}: {e.strerror}", EXIT_INPUT) from e
    print(f"{count} feedback record(s) written to {args.out}", file=sys.stderr)
    return 0


COMMANDS = {
    "ask": cmd_ask,
    "index": cmd_index,
    "model": cmd_model,
    "ui": cmd_ui,
    "feedback": cmd_feedback,
    "eval": cmd_eval,
    "threads": cmd_threads,
    "export": cmd_export,
    "add": cmd_add,
    "library": cmd_library,
    "check-text": cmd_check_text,
    "mcp": cmd_mcp,
    "migrate": cmd_migrate,
    "llm-server": cmd_llm_server,
}


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    # bm25s sets its own logger to DEBUG when imported; a filter outlives that (each BM25 build is not news)
    logging.getLogger("bm25s").addFilter(lambda record: record.levelno >= logging.WARNING)
    try:
        args = _parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except CliError as e:
        print(f"claimtrace: {e}", file=sys.stderr)
        return e.code
    except SettingsError as e:
        print(f"claimtrace: {e}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("claimtrace: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # last line of defence: one line, no traceback, unless debugging
        if os.environ.get("CLAIMTRACE_DEBUG"):
            raise
        print(
            f"claimtrace: internal error: {type(e).__name__}: {e} (CLAIMTRACE_DEBUG=1 shows details)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
