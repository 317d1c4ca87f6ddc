"""Answer (as in Verif.ai): a short answer in which every sentence cites [n] from the evidence list.

Citations are valid by construction: numbers that name no evidence are stripped here and the sentence is
flagged; the answer text the user sees carries only real citations. Without a working LLM the answer is the
extractive floor (agent.compose), which quotes the evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

import prompts
from agent.calls import chat
from agent.compose import extractive_answer
from agent.llm import LLMUnavailableError
from agent.nodes._timing import timed
from agent.state import AnswerSentence, ClaimState, Deps, Evidence, Verdict
from tools.citations import ParsedSentence, parse_answer, render


def evidence_block(evidence: Sequence[Evidence], max_title_chars: int) -> str:
    """The numbered evidence as the LLM reads it: number, title (cut), year, the verifier's stance, the sentence."""
    lines = []
    for ev in evidence:
        year = f", {ev.year}" if ev.year else ""
        stance = {"supports": "supports the claim", "contradicts": "contradicts the claim"}.get(ev.stance, "unclear")
        lines.append(f'[{ev.n}] ({ev.title[:max_title_chars]}{year}; {stance}) "{ev.sentence}"')
    return "\n".join(lines)


def answer_sentences(parsed: list[ParsedSentence]) -> list[AnswerSentence]:
    """Answer sentences before verification; a stripped citation is recorded and stated as the reason."""
    return [
        AnswerSentence(
            text=p.text,
            citations=p.citations,
            invalid_citations=p.invalid,
            reason=f"removed citation(s) to non-existent source(s) {p.invalid}" if p.invalid else "",
        )
        for p in parsed
    ]


@timed("answer")
def answer(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    evidence = state.get("evidence", [])
    if not evidence:
        text = prompts.load("answer_no_evidence")
        return {"answer": text, "sentences": [AnswerSentence(text=text, status="uncited")]}
    verdict = state.get("verdict")
    if state.get("llm_error"):
        return extractive(evidence, verdict)
    try:
        reply, usage = chat(
            runtime.context.llm,
            prompts.load("answer_system"),
            prompts.render(
                "answer",
                claim=state["claim"],
                evidence=evidence_block(evidence, runtime.context.settings.answer.max_title_chars),
                numbers=", ".join(f"[{ev.n}]" for ev in evidence),
                verdict=verdict.describe() if verdict else "unknown",
            ),
            max_tokens=runtime.context.settings.llm.max_tokens,
        )
    except LLMUnavailableError as e:
        note = f"answer: {e}; the answer quotes the evidence instead"
        return extractive(evidence, verdict) | {"llm_error": str(e), "notes": [note]}
    parsed = parse_answer(reply, {ev.n for ev in evidence})
    return {"answer": render(parsed), "sentences": answer_sentences(parsed), "usage": usage}


def extractive(evidence: Sequence[Evidence], verdict: Verdict | None) -> dict[str, Any]:
    """The extractive floor as the answer (agent.compose): no LLM involved."""
    sentences = extractive_answer(evidence, verdict)
    return {"answer": render([ParsedSentence(s.text, s.citations) for s in sentences]), "sentences": sentences}
