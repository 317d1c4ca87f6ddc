"""The answer and its evidence as text: the numbered evidence the LLM reads (``evidence_block``, the answer and the
follow-up router read it), and an answer as one text, the verdict's words then its sentences with their valid
citations (``answer_text``)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.state import AnswerSentence, Evidence
from tools.text.citations import ParsedSentence, render


def evidence_block(evidence: Sequence[Evidence], max_title_chars: int) -> str:
    """The numbered evidence as the LLM reads it: number, title (cut), year, the verifier's stance, the sentence."""
    lines = []
    for ev in evidence:
        year = f", {ev.year}" if ev.year else ""
        stance = {"supports": "supports the claim", "contradicts": "contradicts the claim"}.get(ev.stance, "unclear")
        lines.append(f'[{ev.n}] ({ev.title[:max_title_chars]}{year}; {stance}) "{ev.sentence}"')
    return "\n".join(lines)


def answer_text(summary: str, sentences: Sequence[AnswerSentence]) -> str:
    """What the answer reads as a whole: the verdict's words, then the sentences with their valid citations."""
    body = render([ParsedSentence(s.text, s.citations) for s in sentences])
    return " ".join(part for part in (summary, body) if part)
