"""Prompts live here as Markdown files, one per prompt, loaded by name."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def load(name: str) -> str:
    """The text of `prompts/<name>.md`."""
    path = _DIR / f"{name}.md"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt named {name!r} in {_DIR}")
    return path.read_text(encoding="utf-8").strip()


def render(name: str, **values: str) -> str:
    """Fill `{placeholders}` in one pass: values are inserted verbatim and never read as templates themselves, so
    source text that happens to contain "{claim}" stays data."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), load(name))
