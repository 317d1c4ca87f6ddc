"""The papers a verdict rests on, counted in the one wording every view uses: the answer, the chat, the terminal,
the export and the LLM's prompts."""

from __future__ import annotations

from collections.abc import Sequence


def papers(n: int) -> str:
    """"1 paper", "2 papers": every count the user sees is of papers."""
    return f"{n} paper" if n == 1 else f"{n} papers"


def side_counts(supporting: int, contradicting: int, irrelevant: int) -> str:
    """The papers on each side, in the one wording every view uses: "2 papers support the claim and 1 contradicts
    it; 3 more bear on neither side"."""
    support = f"{papers(supporting)} support{'s' if supporting == 1 else ''} the claim"
    against = f"{contradicting} contradict{'s' if contradicting == 1 else ''} it"
    bear = "bears" if irrelevant == 1 else "bear"
    neither = f"; {irrelevant} more {bear} on neither side" if irrelevant else ""
    return f"{support} and {against}{neither}"


def listing(names: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
