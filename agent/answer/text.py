"""The answer and its evidence as text. The evidence as each prompt that writes or routes from it reads it: the
answer's ``<finding>`` items (``findings_block``), the per-paper prompt's ``<paper>`` items (``papers_block``), the
follow-up router's numbered lines (``evidence_block``), each with the verifier's stance in words
(``stance_words``); the judge reads a paper through ``agent.judge.direction.evidence_text``. And an answer as one
text, the verdict's words then its sentences with their valid citations (``answer_text``)."""

from __future__ import annotations

from collections.abc import Sequence

import prompts
from agent.answer.compose import by_number, finding
from agent.state import AnswerSentence, Evidence
from tools.text.citations import ParsedSentence, render

STANCE_WORDS = {"supports": "supports the claim", "contradicts": "contradicts the claim"}


def stance_words(stance: str) -> str:
    """The verifier's stance as the LLM reads it beside a sentence: "supports the claim", "contradicts the claim" or
    "unclear"."""
    return STANCE_WORDS.get(stance, "unclear")


def findings_block(evidence: Sequence[Evidence]) -> prompts.Fragment:
    """The evidence as the answer prompts show it: one ``<finding>`` per item with its number, the study's year, the
    abstract section it comes from when the abstract names one, and the verifier's stance; inside, the sentence
    without its section heading (agent.answer.compose.finding), fenced by ``prompts.fence`` (a planted ``</finding>`` or
    chat-template token can neither close the item nor open a turn)."""
    items = []
    for ev in evidence:
        attributes: dict[str, str | int] = {"n": ev.n}
        if ev.year:
            attributes["year"] = ev.year
        if ";" in ev.section:
            attributes["section"] = ev.section.split(";")[0]
        attributes["stance"] = stance_words(ev.stance)
        items.append(prompts.fence("finding", finding(ev.sentence), **attributes))
    return prompts.lines(items)


def papers_block(evidence: Sequence[Evidence]) -> prompts.Fragment:
    """The evidence as the per-paper prompt shows it: one ``<paper>`` per number [n], holding that paper's evidence
    sentences in order, each without its heading, fenced as ``findings_block`` fences them."""
    texts = {n: " ".join(finding(ev.sentence) for ev in evs) for n, evs in by_number(evidence).items()}
    return prompts.lines([prompts.fence("paper", text, n=n) for n, text in texts.items()])


def evidence_block(evidence: Sequence[Evidence], max_title_chars: int) -> str:
    """The numbered evidence as the LLM reads it: number, title (cut), year, the verifier's stance, the sentence."""
    lines = []
    for ev in evidence:
        year = f", {ev.year}" if ev.year else ""
        lines.append(f'[{ev.n}] ({ev.title[:max_title_chars]}{year}; {stance_words(ev.stance)}) "{ev.sentence}"')
    return "\n".join(lines)


def answer_text(summary: str, sentences: Sequence[AnswerSentence]) -> str:
    """What the answer reads as a whole: the verdict's words, then the sentences with their valid citations."""
    body = render([ParsedSentence(s.text, s.citations) for s in sentences])
    return " ".join(part for part in (summary, body) if part)
