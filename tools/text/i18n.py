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
(``english``): what they write goes to the LLM and into the kept JSON. The reasons and notes they write come from
catalog templates (``written``), so that a view can say each one again in its own language (``said``), reading the
values back out of the English."""

from __future__ import annotations

import functools
import json
import math
import re
import string
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


def written(template: str, /, **values: object) -> str:
    """A sentence the code writes into a result in English from a catalog ``template`` (a reason, an explanation):
    the result and its JSON keep the English, and a view says it in its own language with ``said``. Nested phrases
    go in as values that are ``written`` themselves."""
    return template.format(**values) if values else template


@cache
def _templates(language: str) -> list[tuple[re.Pattern[str], str]]:
    """The catalog's sentence templates that take values (three words or more besides them: "{n} papers" would read
    any text ending in "papers"), as patterns that read the values back out of their English, the longest first (the
    most specific)."""
    out = []
    for key in sorted((k for k in catalog(language) if "{" in k and _sentence(k)), key=len, reverse=True):
        pattern, seen = "", set()
        for literal, field, _, _ in string.Formatter().parse(key):
            pattern += re.escape(literal)
            if field:
                pattern += f"(?P={field})" if field in seen else f"(?P<{field}>.+?)"
                seen.add(field)
        out.append((re.compile(pattern, re.DOTALL), key))
    return out


def _sentence(template: str) -> bool:
    return len(re.findall(r"[^\W\d_]+", re.sub(r"\{\w*\}", " ", template))) >= 3


def _whole(text: str, language: str) -> str | None:
    """``text`` in ``language`` when the whole of it is one catalog string or template, else None."""
    kept = catalog(language)
    if text in kept:
        return kept[text]
    for pattern, key in _templates(language):
        m = pattern.fullmatch(text)
        if m and not any(_JOINS.search(v) for v in m.groupdict().values()):  # a value never spans two sentences
            values = {k: _whole(v, language) or _number(v, language) for k, v in m.groupdict().items()}
            return kept[key].format(**values)
    return None


def _number(value: str, language: str) -> str:
    """A decimal (or a formula of them) or a percentage read back out of an English sentence, as ``language``
    writes it (``decimal``; "{n}%" in its catalog)."""
    if re.fullmatch(r"[\d.+\-×/ ]*\d\.\d[\d.+\-×/ ]*", value):  # a number, or a sum of products of them
        return value.replace(".", ",")
    if m := re.fullmatch(r"(\d+)%", value):
        return catalog(language).get("{n}%", "{n}%").format(n=m.group(1))
    return value


# where the code joins the sentences and clauses it writes: the space after a full stop or a closing bracket, or "; "
_JOINS = re.compile(r"(?<=[.)]) (?=[A-Z(])|; ")
# French sets a narrow no-break space before a semicolon
_CLAUSE_JOIN = {"fr": "\u202f; "}


def said(text: str) -> str:
    """An English text the code wrote from catalog templates (``written``: reasons, explanations), in the spoken
    language: each run of its sentences and clauses that is a catalog string or template is translated, the longest
    run first, with the values read back out of the English; a part that none matches stays English (a quote from a
    paper, a library's message)."""
    language = spoken()
    if language == ENGLISH or not text:
        return text
    parts, joins, at = [], [], 0
    for m in _JOINS.finditer(text):
        parts.append(text[at : m.start()])
        joins.append(m.group(0))
        at = m.end()
    parts.append(text[at:])
    joins.append("")

    def join(k: int) -> str:
        return _CLAUSE_JOIN.get(language, joins[k]) if joins[k] == "; " else joins[k]

    @cache
    def rest(i: int) -> str:
        for j in range(len(parts), i, -1):
            run = "".join(parts[k] + joins[k] for k in range(i, j - 1)) + parts[j - 1]
            whole = _whole(run, language)
            if whole is not None:
                return whole + join(j - 1) + (rest(j) if j < len(parts) else "")
        return parts[i] + join(i) + (rest(i + 1) if i + 1 < len(parts) else "")

    return rest(0)


def english(fn: F) -> F:
    """``fn``, speaking English whatever the code that calls it speaks."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with speaking(ENGLISH):
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]
