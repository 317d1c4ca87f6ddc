"""Prompts live here as Markdown files, one per prompt, loaded by name.

A prompt's `{placeholders}` are its contract with the code: `render` fills them in one pass and raises
`PromptError` when a placeholder gets no value or a value has no placeholder, so a prompt and its caller cannot
drift apart silently. Every value is data and goes in through `inert`, so source text, a claim or a user's message
can never close one of the prompts' data fences, open another, or start a chat turn, whichever call site renders
it. The one exception is a `Fragment`: prompt text made here (`part`: another prompt file) or by `fence`, which
builds a fenced item from data that it makes inert itself."""

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


class Fragment(str):
    """Prompt text that ``render`` inserts as it is: made only by ``part`` and ``fence``, never from data alone."""


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


def part(name: str) -> Fragment:
    """A prompt file that goes inside another prompt (a reply format)."""
    return Fragment(load(name))


def fence(tag: str, text: str, **attributes: str | int) -> Fragment:
    """One fenced item, ``<tag a="v">text</tag>``, its text and attribute values made inert (attribute values lose
    their quotes too, so that they cannot end the attribute)."""
    attrs = "".join(f' {k}="{inert(str(v)).replace(chr(34), "")}"' for k, v in attributes.items())
    return Fragment(f"<{tag}{attrs}>{inert(text)}</{tag}>")


def lines(items: list[Fragment]) -> Fragment:
    """Fenced items, one per line."""
    return Fragment("\n".join(items))


def render(name: str, **values: str) -> str:
    """Fill `{placeholders}` in one pass: every value goes through `inert` unless it is a `Fragment`, and no value
    is read as a template itself, so source text that happens to contain "{claim}" stays data. Raises PromptError
    naming any placeholder without a value and any value without a placeholder."""
    return render_text(load(name), name, **values)


def render_text(template: str, name: str, /, **values: str) -> str:
    """``render`` of a prompt's text given here rather than read from its file (an evaluation's earlier version of
    prompt ``name``), by the same rules."""
    wanted = set(_PLACEHOLDER.findall(template))
    missing, unknown = wanted - set(values), set(values) - wanted
    if missing or unknown:
        parts = [
            f"missing {', '.join(sorted(missing))}" if missing else "",
            f"unknown {', '.join(sorted(unknown))}" if unknown else "",
        ]
        raise PromptError(f"prompt {name!r}: {'; '.join(p for p in parts if p)}")
    safe = {k: v if isinstance(v, Fragment) else inert(v) for k, v in values.items()}
    return _PLACEHOLDER.sub(lambda m: safe[m.group(1)], template.strip())


def inert(text: str) -> str:
    """Source text (an abstract sentence, a title) as it goes inside a prompt's data fence: tag-like text removed,
    so that it can neither close the fence, nor open a new one, nor start a chat turn (the embedded model's server
    reads "<|im_start|>" in a message as the real token); every other character is kept as it is."""
    return _TAG_LIKE.sub("", text)
