"""The papers behind a check's sources, one per abstract (a paper can give several evidence sentences), with a
citation key that is the same every time the same result is exported: the first long word of the title and the
year ("measles2019"), with b, c, ... after a key already taken. Texts are made single-line (ui.shared.untrusted.plain);
escaping for a format is the format's job."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from agent.grouping import grouped
from agent.result import Source
from ui.shared.untrusted import link, plain

_WORD = re.compile(r"[a-z0-9]+")
_SHORT = {"the", "and", "for", "with", "from", "into", "are", "its", "was", "were", "has", "have", "not", "but"}


@dataclass(frozen=True)
class Reference:
    key: str
    doc_id: str
    title: str
    year: int | None
    venue: str | None
    doi: str | None
    pmid: str | None
    url: str | None  # http(s) only
    retracted: bool
    evidence: tuple[int, ...]  # the numbers [n] of its evidence sentences


def _ascii_words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return _WORD.findall(folded)


def base_key(title: str, year: int | None) -> str:
    words = _ascii_words(title)
    word = next((w for w in words if len(w) >= 3 and w not in _SHORT and not w.isdigit()), "source")
    return f"{word[:24]}{year or ''}"


def _clean(value: str | None) -> str | None:
    text = plain(value).strip() if value else ""
    return text or None


def _web(url: str | None) -> str | None:
    """The URL when it is an http(s) one (ui.shared.untrusted.link), as given."""
    return _clean(url) if url and link(url) else None


def references(sources: Sequence[Source]) -> list[Reference]:
    """One reference per abstract, in the order of its first evidence sentence."""
    papers = grouped(sources, lambda src: src.doc_id)
    order = list(papers)
    first = {doc_id: srcs[0] for doc_id, srcs in papers.items()}
    evidence = {doc_id: list(dict.fromkeys(src.n for src in srcs)) for doc_id, srcs in papers.items()}
    taken: set[str] = set()
    refs = []
    for doc_id in order:
        src = first[doc_id]
        key = base = base_key(src.title, src.year)
        count = 1
        while key in taken:  # the second "measles2019" is "measles2019b"
            count += 1
            key = f"{base}{chr(ord('a') + count - 1)}" if count <= 26 else f"{base}x{count}"
        taken.add(key)
        refs.append(
            Reference(
                key=key,
                doc_id=doc_id,
                title=_clean(src.title) or "(untitled)",
                year=src.year,
                venue=_clean(src.venue),
                doi=_clean(src.doi),
                pmid=_clean(src.pmid),
                url=next((u for s in sources if s.doc_id == doc_id and (u := _web(s.url))), None),
                retracted=src.retracted,
                evidence=tuple(evidence[doc_id]),
            )
        )
    return refs
