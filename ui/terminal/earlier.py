"""Earlier checks at the command line: `claimtrace ask` first looks for a kept check of the same claim or its opposite
(agent.earlier) and, when it finds one, prints it instead of checking again: its verdict, date, who checked it and
how to open it; `--fresh` checks again now, and the new check's JSON names the earlier ones it was matched to. Every
check `ask` keeps is recorded so that the next one finds it."""

from __future__ import annotations

import getpass
import sys
from typing import Any

from agent.earlier.matches import STORE_ERRORS, EarlierCheck, find_earlier, matching_llm, record
from agent.settings.app import Settings
from tools.text.i18n import t
from ui.shared.untrusted import plain


def who() -> str:
    """The user running the command, as the kept check names them."""
    try:
        return f"{getpass.getuser()} (command line)"
    except (KeyError, OSError):
        return ""


def earlier_checks(settings: Settings, claim: str) -> list[EarlierCheck]:
    """The kept checks near the claim, read against it; a store that cannot be read costs a warning, never the
    check."""
    if not settings.stores.earlier_checks:
        return []
    from tools.models.embedder import get_embedder
    from tools.models.verifier import get_verifier

    try:
        return find_earlier(settings, get_embedder(), get_verifier(), claim, llm=matching_llm(settings))
    except STORE_ERRORS as e:
        print(f"claimtrace: warning: earlier checks were not looked up ({' '.join(str(e).split())})", file=sys.stderr)
        return []


def print_matches(found: list[EarlierCheck]) -> None:
    """The matched earlier checks, for a person: each with how to open it, then how to check again."""
    for e in (e for e in found if e.matched):
        kind = t("The same claim") if e.relation == "same" else t("Its opposite")
        print(t("{kind} was checked before. {earlier}", kind=kind, earlier=plain(e.describe())))
        print("  " + t("Open it: {command}", command=f"claimtrace export {e.thread_id} --format md"))
    print(t("Not checked again. To check it again now (the index may have changed): {command}",
            command="claimtrace ask --fresh ..."))


def matches_json(claim: str, found: list[EarlierCheck]) -> dict[str, Any]:
    """`ask --json` when an earlier check matched: the claim, that nothing was checked now, and the earlier checks."""
    first = next(e for e in found if e.matched)
    return {
        "claim": claim,
        "checked": False,
        "summary": first.describe(),
        "earlier": [e.model_dump() | {"verdict_for_this_claim": e.verdict_for_new_claim()} for e in found],
    }


def record_check(settings: Settings, result: dict[str, Any], thread_id: str) -> None:
    """Make a kept check findable by its claim; a store that cannot take it costs a warning."""
    if not settings.stores.earlier_checks:
        return
    from tools.models.embedder import get_embedder

    try:
        record(settings, get_embedder(), result, thread_id, who())
    except STORE_ERRORS as e:
        print(f"claimtrace: warning: this check cannot be found by later ones ({' '.join(str(e).split())})",
              file=sys.stderr)
