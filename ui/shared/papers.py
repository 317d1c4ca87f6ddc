"""Sources by paper: the evidence sentences of one abstract share its number [n] (agent/nodes/select_evidence.py),
so every view lists a paper once, with its sentences under it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from agent.grouping import grouped

T = TypeVar("T")


def by_paper(sources: Sequence[T], number: Callable[[T], int] = lambda s: s["n"]) -> list[list[T]]:  # type: ignore[index]
    """The sources grouped by their number, in the order each number first appears."""
    return list(grouped(sources, number).values())

