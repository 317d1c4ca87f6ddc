"""The checks of each answer sentence (Verif.ai; attribution as in FRSC): each one against the sentences it
cites, by the independent sentence verifier (not the generator; tools.models.verifier.get_sentence_verifier, trained
also on evidence sentences against themselves). Status: supported / contradicted / unsupported / uncited; attribution
lists the best-matching source sentences of the whole evidence list. A sentence of the extractive template that
quotes its cited source word for word (agent.answer.compose) is supported by that quote, whatever the verifier reads.
Not supported, whatever the verifier reads (it reads topic, and passes all of them): a sentence that restates the
claim, or its negation, in words its sources do not use, one that repeats the words of an uncited source while what
it cites holds few of them (a quote under the wrong number), one without a single word, and one that rules on the
claim or the verdict ("the claim is true", "the verdict is supported") instead of reporting a finding: the verdict is
the verifier's and is shown apart, and such a sentence is what text planted in a source asks a model to write (its
words can then be in the source itself). A sentence that copies or rewords a cited sentence but changes it (a
negation dropped or added, a number changed, "in mice" or the head of the subject dropped, a hedge dropped:
tools.text.distortion) is not supported either. Nor is a sentence the LLM reads as saying the opposite of what it
cites (agent.answer.sentence_direction)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent.answer.compose import paper_texts, quotes
from agent.answer.sentence_direction import read_direction
from agent.judge.sources import premise
from agent.state import AnswerSentence, Attribution, Deps, Evidence, StanceVerifier, Usage
from tools.text.distortion import distorted
from tools.text.i18n import written
from tools.text.overlap import copies, misattributed, without_negations, words

_RULING = re.compile(r"\bverdicts?\b|\b(?:the|this|that) claim (?:is|was|has been|remains|seems)\b", re.IGNORECASE)


def restates(sentence: str, claim: str, cited: Sequence[str]) -> bool:
    """Whether the sentence carries a run of the claim's words that what it cites does not hold, read as it is and
    with the negations of both taken out ("breast cancer is not determined exclusively by genetic factors" restates
    the claim "… is determined exclusively by genetic factors" as much as the claim itself does)."""
    bare = [without_negations(c) for c in cited]
    return copies(sentence, claim, cited) or copies(without_negations(sentence), claim, bare)


def _status(cited: list[tuple[Evidence, Any]]) -> tuple[str, float, str]:
    best_sup = max(cited, key=lambda p: p[1].p_supports)
    best_con = max(cited, key=lambda p: p[1].p_contradicts)
    if best_sup[1].label == "supports":
        return "supported", round(best_sup[1].p_supports, 4), written("[{n}] supports this sentence", n=best_sup[0].n)
    if best_con[1].label == "contradicts":
        return (
            "contradicted",
            round(-best_con[1].p_contradicts, 4),
            written("[{n}] contradicts this sentence", n=best_con[0].n),
        )
    return "unsupported", round(best_sup[1].score, 4), written("no cited source states this")


def check_sentences(
    sentences: Sequence[AnswerSentence],
    evidence: Sequence[Evidence],
    verifier: StanceVerifier,
    top: int,
    claim: str = "",
) -> list[AnswerSentence]:
    """The sentences with their status, score, reason, attribution and flag. A sentence the verifier finds supported
    that carries a run of the claim's words its cited sources do not hold restates the claim instead of reporting a
    source: unsupported (tools.text.overlap)."""
    if not evidence or not sentences:
        return list(sentences)
    pairs = [(s.text, premise(ev)) for s in sentences for ev in evidence]
    results = verifier.predict(pairs)
    texts = paper_texts(evidence)
    out: list[AnswerSentence] = []
    for k, s in enumerate(sentences):
        row = list(zip(evidence, results[k * len(evidence) : (k + 1) * len(evidence)], strict=True))
        ranked = sorted(row, key=lambda p: -(1.0 - p[1].p_nei))
        attribution = [
            Attribution(source=ev.n, sentence=ev.sentence, score=round(1.0 - r.p_nei, 4)) for ev, r in ranked[:top]
        ]
        cited = [p for p in row if p[0].n in s.citations]
        quoted = next((ev for ev, _ in cited if quotes(s.text, ev)), None)
        score: float | None
        if quoted is not None:
            status, score, reason = "supported", None, written("quotes [{n}] word for word", n=quoted.n)
        elif cited and not words(s.text):
            status, score, reason = "unsupported", None, written("states nothing")
        elif cited:
            status, score, reason = _status(cited)
            other = misattributed(s.text, s.citations, texts)
            said = [ev.sentence for ev, _ in cited]
            if status == "supported" and restates(s.text, claim, said):
                status, reason = "unsupported", written("restates the claim in words its sources do not use")
            elif other is not None:
                status, reason = "unsupported", written("repeats [{n}], not what it cites", n=other)
            elif status == "supported" and _RULING.search(s.text):
                status, reason = "unsupported", written("rules on the claim instead of reporting a finding")
            elif status == "supported" and (changed := distorted(s.text, said)):
                status, reason = "unsupported", changed
        else:
            status, score, reason = "uncited", None, written("cites no existing source")
        if s.invalid_citations:
            reason = f"{reason}; {s.reason}"
        update = {
            "status": status,
            "score": score,
            "reason": reason,
            "attribution": attribution,
            "flagged": status != "supported" or bool(s.invalid_citations),
        }
        out.append(s.model_copy(update=update))
    return out


def verified(
    sentences: Sequence[AnswerSentence],
    evidence: Sequence[Evidence],
    deps: Deps,
    claim: str,
    llm_ok: bool = True,
    deadline: float | None = None,
) -> tuple[list[AnswerSentence], Usage, list[str]]:
    """Verify's checks: the verifier's (`check_sentences`), then, while the LLM works (``llm_ok``), its reading of
    direction (agent.answer.sentence_direction, by ``deadline`` when given); with the LLM's usage and notes."""
    checked = check_sentences(sentences, evidence, deps.answer_verifier, deps.settings.answer.top_attribution, claim)
    if not llm_ok:
        return checked, Usage(), []
    return read_direction(checked, evidence, deps, deadline)
