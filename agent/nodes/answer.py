"""Answer (as in Verif.ai): a short answer in which every sentence cites [n] from the evidence list, written by
the strategy ANSWER_STRATEGY names (agent.answer.strategies).

The answer opens with the verdict in words, written by code from the verdict's figures (agent.judge.sentence), so it
never disagrees with the badge; the LLM writes only what follows, from the abstracts the verdict counts.
Citations are valid by construction: numbers that name no evidence are stripped and the sentence is flagged; the
answer text the user sees carries only real citations. Without a working LLM the answer is the extractive floor
(agent.answer.compose), which quotes the evidence."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

import prompts
from agent.answer.strategies import write
from agent.answer.text import answer_text
from agent.judge.reckoning import bearing_evidence
from agent.judge.sentence import verdict_sentence
from agent.llm.client import LLMUnavailableError
from agent.nodes._timing import timed
from agent.state import AnswerSentence, ClaimState, Deps
from tools.text.i18n import written


@timed("answer")
def answer(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """The verdict in words (agent.judge.sentence), then what the LLM writes from the abstracts the verdict counts;
    with none counted, the verdict's words are the whole answer and the LLM is not asked."""
    settings = runtime.context.settings
    verdict = state.get("verdict")
    assessments = state.get("assessments", [])
    summary = verdict_sentence(verdict, assessments, state.get("silent", [])) if verdict else ""
    evidence = bearing_evidence(state.get("evidence", []), assessments)
    if not evidence:
        text = summary or prompts.load("answer_no_evidence")
        return {"summary": text, "answer": text, "sentences": []}
    strategy = settings.answer.strategy
    earlier: list[str] = []
    if state.get("llm_error"):  # an earlier step of this check found the LLM down: do not wait for it again
        strategy = "extractive"
        earlier = ["answer: " + written("the LLM failed earlier in this check ({error}); the answer quotes the "
                                        "evidence instead", error=state["llm_error"])]
    try:
        sentences, usage = write(strategy, state["claim"], evidence, verdict, runtime.context)
    except LLMUnavailableError as e:
        sentences, usage = write("extractive", state["claim"], evidence, verdict, runtime.context)
        note = "answer: " + written("{error}; the answer quotes the evidence instead", error=e)
        return shown(summary, sentences) | {"llm_error": str(e), "notes": [note]}
    if not sentences:  # a reply with no sentence the strategy can read: the evidence is quoted instead
        sentences, _ = write("extractive", state["claim"], evidence, verdict, runtime.context)
        earlier.append("answer: the LLM wrote no sentence that reports a paper; the answer quotes the evidence instead")
    # a reply the answer's own budget (ANSWER_MAX_TOKENS) ended has lost only its unfinished last sentence: no note
    return shown(summary, sentences) | {"usage": usage, "notes": earlier}


def shown(summary: str, sentences: list[AnswerSentence]) -> dict[str, Any]:
    """The state update: the summary, the sentences, and the answer text."""
    return {"summary": summary, "answer": answer_text(summary, sentences), "sentences": sentences}
