"""Prompts live here as Markdown files, one per prompt, loaded by name.

A prompt's `{placeholders}` are its contract with the code: `render` fills them in one pass and raises
`PromptError` when a placeholder gets no value or a value has no placeholder, so a prompt and its caller cannot
drift apart silently."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class PromptError(ValueError):
    """A prompt rendered with missing or unknown values."""


def names() -> list[str]:
    """Every prompt file's name."""
    return sorted(p.stem for p in _DIR.glob("*.md"))


@cache
def load(name: str) -> str:
    """The text of `prompts/<name>.md`."""
    path = _DIR / f"{name}.md"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt named {name!r} in {_DIR}")
    return path.read_text(encoding="utf-8").strip()


def placeholders(name: str) -> set[str]:
    """The `{placeholders}` of a prompt."""
    return set(_PLACEHOLDER.findall(load(name)))


def render(name: str, **values: str) -> str:
    """Fill `{placeholders}` in one pass: values are inserted verbatim and never read as templates themselves, so
    source text that happens to contain "{claim}" stays data. Raises PromptError naming any placeholder without a
    value and any value without a placeholder."""
    wanted = placeholders(name)
    missing, unknown = wanted - set(values), set(values) - wanted
    if missing or unknown:
        parts = [f"missing {', '.join(sorted(missing))}" if missing else "",
                 f"unknown {', '.join(sorted(unknown))}" if unknown else ""]
        raise PromptError(f"prompt {name!r}: {'; '.join(p for p in parts if p)}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], load(name))
