"""`claimtrace ask`: one claim checked, its verdict on stderr the moment it is reached, then the answer (readable or
--json), then, without --json, each paper's generated summary as it is written; the check is kept for
`claimtrace export --last`. A claim checked before (the same claim or its opposite) is shown with its earlier
verdict instead of being checked again, unless --fresh (ui/terminal/earlier.py). What it prints for a person speaks the
claim's language (--lang to choose another; tools.text.i18n); the JSON speaks English. A claim in another language
is checked in the LLM's English, or in the user's own (--english)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent.errors import EXIT_INPUT, CliError, unavailable_parts
from agent.settings.app import Settings
from agent.translate import InEnglish, in_english, own_english
from tools.text.i18n import decimal, speaking, t
from ui.shared.untrusted import plain
from ui.terminal.earlier import earlier_checks, matches_json, print_matches, record_check
from ui.terminal.export import keep_cli_check


def read_claim(arg: str) -> str:
    if arg != "-":
        return arg
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError("the claim is not valid UTF-8 text", EXIT_INPUT) from e


def cmd_ask(args: argparse.Namespace) -> int:
    from agent.service import InputError, validate_claim
    from agent.settings.app import get_settings
    from tools.live.config import parse_sources

    settings = get_settings()
    if args.sources is not None:
        try:
            settings = settings.with_values(live={"sources": parse_sources(args.sources)})
        except ValueError as e:
            raise CliError(f"--sources: {e}", EXIT_INPUT) from e
    if args.search_rounds is not None:
        settings = settings.with_values(retrieval={"search_rounds": args.search_rounds})
    try:
        asked, notes = validate_claim(read_claim(args.claim), settings.answer.max_claim_chars)
    except InputError as e:
        raise CliError(str(e), EXIT_INPUT) from e
    english = in_english(None, asked)  # an English claim takes no step; another is translated by the LLM
    if args.english is not None:  # the user's own English: no translation is asked of the LLM
        try:
            own, _ = validate_claim(args.english, settings.answer.max_claim_chars)
            english = own_english(asked, own)
        except (InputError, ValueError) as e:
            raise CliError(f"--english: {e}", EXIT_INPUT) from e
    with speaking("en" if args.json else args.lang or english.language):
        return checked(args, settings, asked, notes, english)


def checked(args: argparse.Namespace, settings: Settings, asked: str, notes: list[str], english: InEnglish) -> int:
    """The check of ``asked`` (``english``: its language, and its English when it is another), printed."""
    from agent.provenance import run_info
    from agent.result import CheckResult
    from agent.service import load_deps, run_claim, supplement_result, translate_result
    from ui.shared.ask_json import ask_json

    deps = None
    if english.language != "en" and not english.translated:
        with unavailable_parts():
            deps = load_deps(settings)
        english = in_english(deps.llm, asked)
        notes += [english.note] if english.note else []
        if english.translated and not args.json:
            print(t("Checked as: {claim} (translated from your words by the LLM)", claim=plain(english.claim)),
                  file=sys.stderr)
    claim = english.claim
    found = earlier_checks(settings, claim)  # with --fresh too: the new check keeps a link to the earlier ones
    if not args.fresh and any(e.matched for e in found):
        if args.json:
            print(json.dumps(matches_json(claim, found), ensure_ascii=False))
        else:
            print_matches(found)
        return 0

    def early(node: str, update: dict[str, Any]) -> None:
        """The verdict on stderr the moment it is reached, before the LLM writes the answer."""
        v = update.get("verdict") if node == "verdict" else None
        if v is not None and not args.json:
            again = v.provisional or update.get("search_again")
            kind = t("Provisional verdict") if v.provisional else t("Verdict so far") if again else t("Verdict")
            then = t("searching again") if again else t("writing the answer")
            print(t("{kind}: {label} (confidence {confidence}; {sides}); {then}...", kind=kind, label=t(v.label),
                    confidence=decimal(v.confidence), sides=v.sides(), then=then), file=sys.stderr, flush=True)

    with unavailable_parts():
        deps = deps or load_deps(settings)
        run = run_info(deps.settings, deps.llm)
        state = run_claim(claim, deps, on_update=early)
    checked = CheckResult.from_state(state, run).model_copy(update={
        "earlier": [e.model_dump() for e in found], "language": english.language,
        "asked": asked if english.translated else ""})
    checked = translate_result(checked, deps)  # the answer's sentences in the claim's language, beside their English
    if args.json:
        result = ask_json(supplement_result(checked, deps), notes)
        print(json.dumps(result, ensure_ascii=False))
    else:
        from ui.terminal.readable import print_readable, print_supplement

        print_readable(ask_json(checked, notes))  # the answer first; each paper's summary as it is written
        if deps.settings.judge.supplement and checked.sources:
            print("\n" + t("A generated summary of each paper, written by the LLM after the answer:"), flush=True)
        result = ask_json(supplement_result(checked, deps, print_supplement), notes)
    thread_id = keep_cli_check(deps.settings, result)  # `claimtrace export --last` finds it
    if thread_id:
        record_check(deps.settings, result, thread_id)
    return 0
