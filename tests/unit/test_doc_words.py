"""No paragraph, list item or table cell of README.md or docs/*.md runs over 120 words, so a newcomer can read each
block at a glance (issue 71). Words are counted in the Markdown source, fenced code blocks left out; a list item
counts with its continuation lines, a table row cell by cell. docs/examples/ is not read: its check_N files are
exports that `claimtrace export` writes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIMIT = 120
FENCE = re.compile(r"^\s*(```|~~~)")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
CELL_SPLIT = re.compile(r"(?<!\\)\|")


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def words(text: str) -> int:
    return len(text.split())


def blocks(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of every paragraph, list item, table cell and heading, fenced code left out."""
    current: list[str] = []
    start = 0
    fenced = False

    def flush() -> Iterator[tuple[int, str]]:
        if current:
            yield start, " ".join(current)
        current.clear()

    for no, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            yield from flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        stripped = line.strip()
        if not stripped:
            yield from flush()
        elif stripped.startswith("|"):
            yield from flush()
            if set(stripped) <= set("|-: "):
                continue  # the line under a table's header
            for cell in CELL_SPLIT.split(stripped.strip("|")):
                yield no, cell.strip()
        elif stripped.startswith("#") or ITEM.match(line):
            yield from flush()
            start = no
            current.append(stripped)
            if stripped.startswith("#"):
                yield from flush()
        else:
            if not current:
                start = no
            current.append(stripped)
    yield from flush()


def long_blocks(text: str, limit: int = LIMIT) -> list[tuple[int, int]]:
    """(line, words) of every block over the limit."""
    return [(no, words(block)) for no, block in blocks(text) if words(block) > limit]


def test_no_block_runs_over_the_limit():
    found = {doc.relative_to(REPO).as_posix(): long_blocks(doc.read_text(encoding="utf-8")) for doc in documents()}
    assert {doc: over for doc, over in found.items() if over} == {}, f"blocks over {LIMIT} words (line, words)"


def test_the_counter_sees_each_kind_of_block():
    long = " ".join(["word"] * (LIMIT + 1))
    short = "a few words"
    text = "\n".join(
        [
            "# A heading",
            "",
            short,
            long,  # the second line of a paragraph counts with its first
            "",
            "- an item",
            f"  {long}",
            "- another item",
            "",
            f"| {short} | {long} |",
            "|---|---|",
            f"| {short} \\| {short} | {short} |",
            "",
            "```bash",
            long,
            "```",
        ]
    )
    assert long_blocks(text) == [(3, LIMIT + 4), (6, LIMIT + 4), (10, LIMIT + 1)]
    assert long_blocks(short) == []
