"""The judge's reading of direction, applied to an answer sentence: does the paper it cites support the sentence,
or the sentence's opposite?

The verifier reads topic, so a sentence that reverses its source in other words ("worse fibrosis" for
"less advanced") passes it, and the word rules of tools.text.distortion see only what a near copy changes. The LLM is
asked, as the direction stage asks about the claim (agent.judge.direction.choose: both orders, first-token
probabilities), which of the sentence and its opposite (tools.text.opposite's rules, else "It is not true that ...") the
cited papers' evidence supports. A sentence it reads as supporting the opposite (P(sentence) below
SENTENCE_DIRECTION_BELOW) is not supported, and self-correction takes it from there.

Only sentences that may say something their sources do not are asked: those the verifier passed, that do not quote
their source and that use a word their cited papers do not. The threshold is chosen on held-out SciFact
train pairs (claim against its rationale sentence) so that few sentences a source supports are flagged
(evals/results/sentence_direction.md). The asking stops when SENTENCE_DIRECTION_SECONDS run out; the sentences left
keep the verifier's reading, with a note.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from agent.answer.compose import by_number
from agent.grouping import grouped
from agent.judge.direction import choose, evidence_text
from agent.llm.client import LLMUnavailableError
from agent.state import AnswerSentence, Deps, Evidence, Usage
from tools.text.claim_rules import frame_removed
from tools.text.i18n import written
from tools.text.opposite import negation, rule_opposite

_WORD = re.compile(r"[a-z0-9]+")


def sentence_opposite(text: str) -> str:
    ruled = rule_opposite(text)
    return ruled.text if ruled is not None else negation(text)


def asked(s: AnswerSentence, cited: Sequence[Evidence]) -> bool:
    """Whether the sentence is read by the LLM: the verifier passed it, it quotes nothing, and, its reporting frame
    aside ("The studies found that"), it uses a word that its cited papers do not, small words included ("more",
    "less", "higher" change a direction; a sentence made only of their words is left to tools.text.distortion)."""
    if s.status != "supported" or s.score is None or not cited:
        return False
    theirs = set(_WORD.findall(" ".join(ev.sentence for ev in cited).lower()))
    return not set(_WORD.findall(frame_removed(s.text).lower())) <= theirs


def read_direction(
    sentences: Sequence[AnswerSentence], evidence: Sequence[Evidence], deps: Deps, deadline: float | None = None
) -> tuple[list[AnswerSentence], Usage, list[str]]:
    """The sentences, each the LLM reads as supporting its opposite marked unsupported; the LLM's usage and notes.
    ``deadline`` (time.perf_counter) overrides SENTENCE_DIRECTION_SECONDS from now."""
    judge = deps.settings.judge
    if judge.direction != "llm" or judge.sentence_direction_below <= 0:
        return list(sentences), Usage(), []
    until = deadline if deadline is not None else time.perf_counter() + judge.sentence_direction_seconds
    by_n = by_number(evidence)
    out: list[AnswerSentence] = []
    usage, left, error = Usage(), 0, ""
    for s in sentences:
        cited = [ev for n in s.citations for ev in by_n.get(n, [])]
        if not asked(s, cited):
            out.append(s)
            continue
        if error or time.perf_counter() >= until:
            left += 1
            out.append(s)
            continue
        papers = grouped(cited, lambda ev: ev.doc_id)
        text = "\n".join(evidence_text(deps, doc_id, evs) for doc_id, evs in papers.items())
        opposite = sentence_opposite(s.text)
        try:
            choice = choose(deps.llm, text, s.text, opposite)
        except LLMUnavailableError as e:
            error = str(e)
            left += 1
            out.append(s)
            continue
        usage += choice.usage
        if choice.p_claim < judge.sentence_direction_below:
            reason = written("its source reads the other way: the LLM judge finds “{opposite}” better supported",
                             opposite=opposite)
            s = s.model_copy(update={"status": "unsupported", "flagged": True, "reason": reason})
        out.append(s)
    notes = []
    if left:
        why = written("the LLM is unavailable ({error})", error=error) if error else written(
            "its time (SENTENCE_DIRECTION_SECONDS) ran out")
        notes.append("verify: " + why + "; " + written(
            "{n} sentence(s) keep the verifier's reading without the LLM's of direction", n=left))
    return out, usage, notes
