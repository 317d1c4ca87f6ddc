"""Answer sentences and their [n] citations: split, parse, and keep only numbers that exist."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from tools.corpus import split_sentences

# "[3]", "[1, 4-6]", "[2–3; 7]"
CITATION = re.compile(r"\[\s*(\d+(?:\s*(?:,|;|-|–)\s*\d+)*)\s*\]")
# the same, with numbers of one to three digits, as a reference list numbers its entries: in a pasted passage
# "[2019]" is a year, not the 2019th reference
NUMBERED = re.compile(r"\[\s*(\d{1,3}(?:\s*[,;\-–]\s*\d{1,3})*)\s*\]")
LEADING_CITATIONS = re.compile(r"^((?:\[\s*[\d\s,;\-–]+\][\s.]*)+)(.*)$", re.DOTALL)


@dataclass
class ParsedSentence:
    text: str  # without citation markers
    citations: list[int] = field(default_factory=list)  # valid, in order of first mention
    invalid: list[int] = field(default_factory=list)  # cited numbers that name no evidence


def citation_numbers(group: str) -> list[int]:
    """The numbers a citation bracket's inside names: "1, 3-5" -> 1, 3, 4, 5 (a range of 20 or more is read as its
    two ends)."""
    out: list[int] = []
    for part in re.split(r"[,;]", group):
        bounds = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
        if len(bounds) == 2 and 0 < bounds[1] - bounds[0] < 20:
            out.extend(range(bounds[0], bounds[1] + 1))
        else:
            out.extend(bounds)
    return out


def answer_sentences(text: str) -> list[str]:
    """Sentences of an answer; citations written after a full stop ("... safe. [1] Next") belong to the
    sentence before them."""
    pieces = split_sentences(text.strip())
    merged: list[str] = []
    for piece in pieces:
        lead = LEADING_CITATIONS.match(piece)
        if merged and lead:
            merged[-1] = f"{merged[-1]} {lead.group(1).strip()}"
            piece = lead.group(2).strip()
        if piece:
            merged.append(piece)
    return merged


def parse_sentence(sentence: str, valid: Collection[int]) -> ParsedSentence:
    cited: list[int] = []
    invalid: list[int] = []
    for match in CITATION.finditer(sentence):
        for n in citation_numbers(match.group(1)):
            target = cited if n in valid else invalid
            if n not in target:
                target.append(n)
    clean = CITATION.sub("", sentence)
    clean = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", clean)).strip()
    return ParsedSentence(text=clean, citations=cited, invalid=invalid)


def parse_answer(answer: str, valid: Collection[int]) -> list[ParsedSentence]:
    return [p for p in (parse_sentence(s, valid) for s in answer_sentences(answer)) if p.text]


def render(sentences: list[ParsedSentence]) -> str:
    """The answer as shown: each sentence followed by its valid citations only."""
    parts = []
    for s in sentences:
        if s.citations:
            body = s.text[:-1] if s.text[-1:] in ".!?" else s.text
            end = s.text[-1] if s.text[-1:] in ".!?" else ""
            parts.append(f"{body} [{', '.join(map(str, s.citations))}]{end}")
        else:
            parts.append(s.text)
    return " ".join(parts)
