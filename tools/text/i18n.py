"""The fixed strings of claimtrace in the user's language: translations made once and kept in the repository
(``catalogs/<code>.json``, one per language of tools.text.language.LANGUAGES but English), never written by the LLM.

Each catalog maps an English string, the key, to its translation; a string with values is a ``str.format`` template
in both, with the same names. English is the key itself, so an English view goes on exactly as before, and a string a
catalog lacks shows in English (tests/unit/test_i18n.py checks that every string the code asks for is in every
catalog, with the same names). Counts choose between two strings, one paper or several (``t_n``): German, Spanish,
French and Portuguese all have one form for 1 and another for the rest.

The language is the one ``speaking`` sets for the code it runs (a context variable, so that each turn, request or
command speaks its own); else the one a front end says its user speaks (``listen``: the chat's, the language of the
user's last message); else English. The agent's graph nodes speak English whatever the view around them speaks
(``english``): what they write goes to the LLM and into the kept JSON."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from tools.text.language import ENGLISH, LANGUAGES

CATALOGS = Path(__file__).with_name("catalogs")
SPOKEN: ContextVar[str | None] = ContextVar("spoken", default=None)
_listeners: list[Callable[[], str | None]] = []
F = TypeVar("F", bound=Callable[..., Any])


@cache
def catalog(language: str) -> dict[str, str]:
    """The translations of one language ({} for English, or a language without a catalog)."""
    path = CATALOGS / f"{language}.json"
    if language == ENGLISH or not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")))


def listen(heard: Callable[[], str | None]) -> None:
    """Take the language from ``heard`` where no code set one (a front end's user's language; None when it knows
    none)."""
    _listeners[:] = [heard]


def spoken() -> str:
    """The ISO 639-1 code of the language the running code speaks."""
    chosen = SPOKEN.get()
    if chosen is None:
        chosen = next((lang for heard in _listeners if (lang := heard()) in LANGUAGES), ENGLISH)
    return chosen


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Speak ``language`` (an ISO 639-1 code) in the block; English for None or a language claimtrace does not
    speak."""
    chosen = language if language in LANGUAGES else ENGLISH
    token = SPOKEN.set(chosen)
    try:
        yield chosen
    finally:
        SPOKEN.reset(token)


def t(text: str, /, **values: object) -> str:
    """``text`` in the spoken language, with ``values`` put in its ``{names}``."""
    template = catalog(spoken()).get(text, text)
    return template.format(**values) if values else template


def t_n(n: int, one: str, other: str, /, **values: object) -> str:
    """``one`` for a count of 1, else ``other``, in the spoken language, with ``n`` and ``values`` put in."""
    return t(one if n == 1 else other, n=n, **values)


def decimal(x: float, places: int = 2) -> str:
    """A number as the spoken language writes it: 0.89 in English, 0,89 in German, Spanish, French and Portuguese."""
    text = f"{x:.{places}f}"
    return text if spoken() == ENGLISH else text.replace(".", ",")


def signed(x: float, places: int = 2) -> str:
    """A number with its sign, as the spoken language writes it: "+0.33", "-0.66" (``f"{x:+.2f}"``); "-0,66" in
    German, Spanish, French and Portuguese."""
    return ("-" if math.copysign(1.0, x) < 0 else "+") + decimal(abs(x), places)


def english(fn: F) -> F:
    """``fn``, speaking English whatever the code that calls it speaks."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with speaking(ENGLISH):
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]
