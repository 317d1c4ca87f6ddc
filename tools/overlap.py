"""Word overlap between an answer sentence and other text: does the sentence carry a run of words from a source
text (the user's claim, a title) that the evidence it cites does not hold? Such a run was copied from that source,
not reported from the evidence."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

RUN = 6  # consecutive words that make a copy
_WORD = re.compile(r"[a-z][a-z0-9\-]*")


def words(text: str) -> list[str]:
    """Lower-case words (letters, digits and hyphens, starting with a letter)."""
    return _WORD.findall(text.lower())


def runs(tokens: Sequence[str], n: int) -> Iterable[str]:
    """Every run of ``n`` consecutive tokens, joined by single spaces."""
    return (" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def copies(sentence: str, source: str, cited: Sequence[str], run: int = RUN) -> bool:
    """Whether the sentence holds a run of ``run`` consecutive words of ``source`` (all of it when shorter, at least
    3 words) that no cited text holds."""
    src = words(source)
    n = min(run, len(src))
    if n < 3:
        return False
    mine = f" {' '.join(words(sentence))} "
    evidence = f" {' '.join(words(' '.join(cited)))} "
    return any(f" {r} " in mine and f" {r} " not in evidence for r in runs(src, n))
