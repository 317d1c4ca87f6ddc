"""Prompts live here as Markdown files, one per prompt, loaded by name."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent


@cache
def load(name: str) -> str:
    """The text of `prompts/<name>.md`."""
    path = _DIR / f"{name}.md"
    if not path.is_file():
        raise FileNotFoundError(f"no prompt named {name!r} in {_DIR}")
    return path.read_text(encoding="utf-8").strip()


def render(name: str, **values: str) -> str:
    """Fill `{placeholders}`; values are inserted verbatim (source text stays data, never a template)."""
    text = load(name)
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text
