"""Items grouped by a key, keeping the order each key first appears (a paper's evidence sentences under its number
or its doc id)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def grouped(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """The items grouped by ``key``, in the order each key first appears: the evidence sentences of a paper under
    its number [n] or its doc id."""
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups
