"""The papers a verdict rests on, counted in the one wording every view uses: the answer, the chat, the terminal,
the export and the LLM's prompts; in the spoken language (tools.text.i18n), English unless a view speaks another."""

from __future__ import annotations

from collections.abc import Sequence

from tools.text.i18n import t, t_n


def papers(n: int) -> str:
    """"1 paper", "2 papers": every count the user sees is of papers."""
    return t_n(n, "{n} paper", "{n} papers")


def side_counts(supporting: int, contradicting: int, irrelevant: int) -> str:
    """The papers on each side, in the one wording every view uses: "2 papers support the claim and 1 contradicts
    it; 3 more bear on neither side"."""
    support = t_n(supporting, "{papers} supports the claim", "{papers} support the claim", papers=papers(supporting))
    both = t_n(contradicting, "{first} and {n} contradicts it", "{first} and {n} contradict it", first=support)
    if not irrelevant:
        return both
    return both + t_n(irrelevant, "; {n} more bears on neither side", "; {n} more bear on neither side")


def listing(names: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else t("{first} and {last}", first=", ".join(names[:-1]), last=names[-1])
