"""Correct: one self-correction pass over the verified answer. Each sentence that its cited sources do not support
is, in this order of preference,

1. recited: when it repeats the words of one evidence sentence it does not cite (a quote under the wrong number, or
   with none), it cites that one instead, and is kept if verify's checks then find it supported;
2. hedged: when its one fault is a hedge its source has and it dropped ("These results suggest that X" -> "X"), it
   is kept in its words with the hedge put back ("The study suggests that X"), if verify's checks then find it
   supported (no LLM call: the small model asked to keep a hedge mostly writes the same sentence again);
3. rewritten once by the LLM against its cited evidence alone (prompts/correct*.md), keeping its citations, and
   kept if verify's checks (the verifier, then the LLM's reading of direction) then find it supported;
4. replaced by an extractive statement of the cited finding (agent.answer.compose: the evidence quoted, with its
number),
   the cited sentence the verifier found closest to it;
5. dropped, when it states nothing or cites no existing source, or when its replacement repeats a sentence
   already shown. Any sentence whose words are already shown is dropped too.

A sentence that contradicts its own citation is therefore never shown as a finding. When nothing is left, the
answer is the extractive floor. The first answer and every change with its reason stay in the state
(``original_answer``, ``corrections``), so the thread, ``ask --json`` and the UI can show what was changed and why.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

import prompts
from agent.answer.checks import check_sentences, verified
from agent.answer.compose import by_number, extractive_answer, extractive_sentence, paper_texts
from agent.answer.text import answer_text
from agent.judge.reckoning import bearing_evidence
from agent.llm.calls import chat
from agent.llm.client import LLMUnavailableError
from agent.nodes._timing import timed
from agent.state import AnswerSentence, ClaimState, Correction, Deps, Evidence, Usage
from tools.text.citations import ParsedSentence, parse_answer, render
from tools.text.distortion import DROPPED_HEDGE
from tools.text.i18n import written
from tools.text.overlap import repeated_source, words


def shown(s: AnswerSentence) -> str:
    """A sentence with its citations, as the answer text shows it."""
    return render([ParsedSentence(s.text, s.citations)])


def rewrite(s: AnswerSentence, cited: Sequence[Evidence], deps: Deps) -> tuple[AnswerSentence | None, Usage]:
    """The LLM's one rewrite of ``s`` from its cited evidence, with the citations of ``s`` (whatever numbers the
    model writes are removed); None when the reply holds no sentence. Evidence and draft go into the prompt without
    tag-like text (prompts.inert)."""
    block = "\n".join(f'- "{ev.sentence}"' for ev in cited)
    reply, usage = chat(
        deps.llm,
        prompts.load("correct_system"),
        prompts.render("correct", evidence=block, sentence=s.text),
        max_tokens=deps.settings.llm.max_tokens,
    )
    parsed = parse_answer(reply.strip().strip('"'), set())
    if not parsed:
        return None, usage
    return AnswerSentence(text=parsed[0].text, citations=list(s.citations), revision="rewritten"), usage


def recite(s: AnswerSentence, evidence: Sequence[Evidence]) -> AnswerSentence | None:
    """``s`` citing the one evidence sentence whose words it repeats, when it does not cite that one already."""
    source = repeated_source(s.text, paper_texts(evidence))
    if source is None or s.citations == [source]:
        return None
    return AnswerSentence(text=s.text, citations=[source], revision="recited")


def rehedge(s: AnswerSentence) -> AnswerSentence | None:
    """``s`` with its source's hedge put back in front ("The study suggests that ..."), when the hedge is what its
    flag says it dropped; None otherwise."""
    if not s.reason.startswith(DROPPED_HEDGE) or not s.text:
        return None
    first, _, rest = s.text.partition(" ")
    # "Interventions" and "A" lose their capital, "TP53" and "CBT" keep theirs
    lower = first[:1].lower() + first[1:] if not first[1:] or first[1:].islower() else first
    said = f"The study suggests that {lower} {rest}".strip()
    return AnswerSentence(text=said, citations=list(s.citations), revision="hedged")


def correction(position: int, s: AnswerSentence, fixed: AnswerSentence | None, reason: str = "") -> Correction:
    """The record of what happened to sentence ``position``: its replacement (recited, hedged, rewritten, replaced) or
    nothing (dropped), and why it was touched (its flag's reason unless ``reason`` says otherwise)."""
    return Correction(
        position=position,
        original=shown(s),
        citations=s.citations,
        invalid_citations=s.invalid_citations,
        status=s.status,
        reason=reason or s.reason,
        action=fixed.revision if fixed is not None and fixed.revision else "dropped",
        text=shown(fixed) if fixed is not None else "",
    )


def closest(s: AnswerSentence, cited: Sequence[Evidence]) -> Evidence:
    """The cited evidence sentence the sentence leans on most: the first of its best attribution among the
    sentences of the papers it cites, else the first sentence of its first citation."""
    rank = {(a.source, a.sentence): k for k, a in enumerate(s.attribution)}
    return min(cited, key=lambda ev: rank.get((ev.n, ev.sentence), len(rank) + s.citations.index(ev.n)))


@timed("correct")
def correct(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    # the main answer may report only the papers its verdict counts; a follow-up, which reads no assessments, may
    # report any evidence the thread holds
    held, assessments = state.get("evidence", []), state.get("assessments", [])
    evidence = bearing_evidence(held, assessments) if assessments else held
    sentences = state.get("sentences", [])
    repeated = len({s.text for s in sentences}) < len(sentences)
    if not evidence or (all(s.status == "supported" for s in sentences) and not repeated):
        return {}
    by_n = by_number(evidence)
    top = deps.settings.answer.top_attribution
    usage, llm_ok = Usage(), not state.get("llm_error")
    notes: list[str] = []
    deadline = time.perf_counter() + deps.settings.judge.sentence_direction_seconds

    def supported(candidate: AnswerSentence | None) -> AnswerSentence | None:
        """A recited, hedged or rewritten sentence as verify's checks read it (one time budget for the pass), when
        they find it supported."""
        nonlocal usage, notes
        if candidate is None:
            return None
        (read,), used, said = verified([candidate], evidence, deps, state.get("claim", ""), llm_ok, deadline)
        usage, notes = usage + used, notes + said
        return read if read.status == "supported" else None

    out: list[AnswerSentence] = []
    corrections: list[Correction] = []
    for position, s in enumerate(sentences, start=1):
        if any(s.text == o.text for o in out):  # the same words are already shown, under their own citations
            corrections.append(correction(position, s, None, "repeats a sentence already shown"))
            continue
        if s.status == "supported":
            out.append(s)
            continue
        # every sentence of the papers it cites; a wordless sentence is dropped
        cited = [ev for n in s.citations for ev in by_n.get(n, [])] if words(s.text) else []
        fixed = supported(recite(s, evidence)) or supported(rehedge(s))
        if fixed is None and cited and llm_ok:
            draft: AnswerSentence | None = None
            try:
                draft, used = rewrite(s, cited, deps)
                usage += used
            except LLMUnavailableError as e:
                llm_ok = False
                notes.append("correct: " + written("{error}; flagged sentences were replaced by quoted findings",
                                                   error=e))
            fixed = supported(draft)
        if fixed is None and cited:
            quote = extractive_sentence(closest(s, cited)).model_copy(update={"revision": "replaced"})
            (fixed,) = check_sentences([quote], evidence, deps.answer_verifier, top)
        if fixed is not None and any(fixed.text == o.text for o in out):
            fixed = None  # the same quote twice says nothing new
        corrections.append(correction(position, s, fixed))
        if fixed is not None:
            out.append(fixed.model_copy(update={"original": shown(s)}))
    if not out:
        quotes = extractive_answer(evidence, state.get("verdict"))
        floor = [q.model_copy(update={"revision": "replaced"}) for q in quotes]
        out = check_sentences(floor, evidence, deps.answer_verifier, top)
        notes.append("correct: " + written("no sentence of the answer survived checking; the answer quotes the "
                                           "evidence instead"))
    return {
        "answer": answer_text(state.get("summary", ""), out),
        "sentences": out,
        "original_answer": state.get("answer") or answer_text(state.get("summary", ""), sentences),
        "corrections": corrections,
        "usage": usage,
        "notes": notes,
    } | ({} if llm_ok or state.get("llm_error") else {"llm_error": notes[0]})
