"""Prompts live here as Markdown files, one per prompt, loaded by name.

A prompt's `{placeholders}` are its contract with the code: `render` fills them in one pass and raises
`PromptError` when a placeholder gets no value or a value has no placeholder, so a prompt and its caller cannot
drift apart silently. `inert` readies source text for the data fences the prompts put it in."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# An HTML or XML tag (<finding n="9">, </evidence>, <img ...>), the start of one of the prompts' own fences left
# unclosed ("</finding" without ">"), or a chat-template token (<|im_start|>, <|endoftext|>).
_TAG_LIKE = re.compile(
    r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>|</?\s*(?:finding|evidence|draft)\b|<\|[^<>|]{1,40}\|>", re.IGNORECASE
)


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
        parts = [
            f"missing {', '.join(sorted(missing))}" if missing else "",
            f"unknown {', '.join(sorted(unknown))}" if unknown else "",
        ]
        raise PromptError(f"prompt {name!r}: {'; '.join(p for p in parts if p)}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], load(name))


def inert(text: str) -> str:
    """Source text (an abstract sentence, a title) as it goes inside a prompt's data fence: tag-like text removed,
    so that it can neither close the fence, nor open a new one, nor start a chat turn (the embedded model's server
    reads "<|im_start|>" in a message as the real token); every other character is kept as it is."""
    return _TAG_LIKE.sub("", text)
