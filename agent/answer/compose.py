"""Answers built from the evidence itself, with no LLM: the extractive floor.

Each sentence names the study by its year, quotes what it reports (the evidence sentence, with a structured
abstract's heading and a leading "In conclusion," trimmed) and cites it: ``A 2019 study reports: "MMR vaccination
was not associated with autism." [1]``. A sentence from a background section is framed as background, not as a
result. The quote is the evidence, so the citation is valid and the sentence says what its source says by
construction (verify checks the quote word for word); the title is never copied in, and the claim is never restated
as a finding. It is the answer when no LLM is reachable, what replaces an LLM sentence that its sources do not
support, and the answer when every LLM sentence is flagged.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

from agent.grouping import grouped
from agent.state import AnswerSentence, Evidence, Verdict
from tools.text.i18n import written
from tools.text.premise import heading_section

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

MAX_QUOTE_CHARS = 400
_LEAD = re.compile(
    r"^(?:in conclusion|in summary|to conclude|overall|taken together|collectively|together|thus|therefore|hence)"
    r"\s*,\s*",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^[A-Z][A-Z &]+[A-Z](?::\s*|\s+)(?=[A-Z0-9])")


def finding(sentence: str, max_chars: int = MAX_QUOTE_CHARS) -> str:
    """The evidence sentence as quoted: without a structured abstract's heading ("RESULTS ...") or a leading
    connective ("In conclusion, ..."), first letter upper-case, cut at a word boundary with "..." past
    ``max_chars``."""
    text = sentence.strip()
    if heading_section(text):
        text = _HEADING.sub("", text, count=1)
    text = _LEAD.sub("", text, count=1)
    if len(text) > max_chars:
        text = text[:max_chars].rsplit(" ", 1)[0].rstrip(",;:") + " ..."
    return text[:1].upper() + text[1:]


# how a quoting sentence names its study (with its year or not) and what the quote is: what the study reports, or
# what it states as background (a sentence of a background section: a premise the study tests is not its finding)
QUOTE_FRAMES = {
    (True, False): 'A {year} study reports: "{quote}"',
    (False, False): 'A study reports: "{quote}"',
    (True, True): 'A {year} study states as background: "{quote}"',
    (False, True): 'A study states as background: "{quote}"',
}


def extractive_sentence(ev: Evidence) -> AnswerSentence:
    """One evidence item as an answer sentence: which study, what it reports (quoted), and its number. The frame
    around the quote is a catalog template (tools.text.i18n.written), which a view says in its own language; the
    quote stays in the paper's words."""
    quote = finding(ev.sentence)
    end = "" if quote.endswith((".", "!", "?", "...")) else "."
    frame = QUOTE_FRAMES[(bool(ev.year), ev.section.startswith("background"))]
    return AnswerSentence(text=written(frame, year=ev.year, quote=quote + end), citations=[ev.n])


QUOTED = re.compile(r'^A (?:\d{4} )?study (?:reports|states as background): "(.+)"$', re.DOTALL)


def quotes(text: str, ev: Evidence) -> bool:
    """Whether an answer sentence is the extractive template quoting ``ev`` word for word."""
    m = QUOTED.match(text.strip())
    if not m:
        return False
    quote = m.group(1).removesuffix("...").rstrip(". ").strip()
    return bool(quote) and quote.lower() in ev.sentence.lower()


def ordered_for(evidence: Sequence[Evidence], verdict: Verdict | None) -> list[Evidence]:
    """Evidence in the order the answer reports it: one item per abstract first (the first-listed sentence of each),
    the side the verdict leans to before the other side, then the remaining sentences."""
    lean = verdict.leaning or verdict.label if verdict else ""
    first_side = "contradicts" if "refuted" in lean.lower() else "supports"
    seen: set[str] = set()
    heads: list[Evidence] = []
    rest: list[Evidence] = []
    for ev in evidence:
        (rest if ev.doc_id in seen else heads).append(ev)
        seen.add(ev.doc_id)
    return sorted(heads, key=lambda ev: ev.stance != first_side) + rest


def extractive_answer(
    evidence: Sequence[Evidence], verdict: Verdict | None, max_sentences: int = 3
) -> list[AnswerSentence]:
    """The extractive floor: up to ``max_sentences`` quoted findings, one per abstract first."""
    return [extractive_sentence(ev) for ev in ordered_for(evidence, verdict)[:max_sentences]]


def by_number(evidence: Iterable[Evidence]) -> dict[int, list[Evidence]]:
    """Each paper's evidence sentences by its number [n]."""
    return grouped(evidence, lambda ev: ev.n)


def paper_texts(evidence: Sequence[Evidence]) -> dict[int, str]:
    """Each paper's evidence sentences as one text, by its number [n]: what a citation of [n] points to."""
    return {n: " ".join(ev.sentence for ev in evs) for n, evs in by_number(evidence).items()}
