"""The verifier's reading of each source, the judge's first part: which sentences of an abstract it shows, whether the
abstract bears on the claim (the gate of agent.judge.calibration), and each abstract's local label and weight.

Without a gate (the evals' older rules), a sentence bears on the claim when the verifier's winning stance is
supports or contradicts with at least ``stance_min_prob``. An abstract keeps its strongest sentences (at most
``sentences_per_doc``); at most ``labelled_docs`` abstracts keep a label, those whose best sentence is strongest.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from agent.judge.calibration import JudgeCalibration, load_calibration
from agent.judge.rationale import get_selector
from agent.judge.scoring import grade, percent, reputation
from agent.state import Evidence, SilentSource, SourceAssessment, numbered
from tools.corpus import Abstract
from tools.models.verifier import VerifierResult
from tools.text.i18n import written
from tools.text.premise import premise as placed_premise


@dataclass(frozen=True)
class JudgeRule:
    sentences_per_doc: int
    stance_min_prob: float  # 0: the verifier's argmax alone decides
    labelled_docs: int  # 0: no limit
    gate: JudgeCalibration | None = None  # the evidence gate; None: any sentence that bears puts its abstract in
    llm_reads: bool = False  # the reader and the LLM read every abstract the verifier does not rule out

    def bears(self, res: VerifierResult) -> bool:
        return res.label != "nei" and max(res.p_supports, res.p_contradicts) >= self.stance_min_prob

    def kept(self, pairs: list[tuple[Evidence, VerifierResult]]) -> tuple[list[Any], float | None]:
        """The sentences an abstract keeps as evidence, strongest first (none: the abstract does not bear), and the
        verifier's P(bears) (None without a gate)."""
        strongest = sorted(pairs, key=lambda p: p[1].p_nei)
        if self.gate is None:
            return [p for p in strongest if self.bears(p[1])][: self.sentences_per_doc], None
        bearing = self.gate.verifier_bearing(1.0 - strongest[0][1].p_nei)
        screen = self.gate.worth_asking if self.llm_reads else self.gate.verifier_passes
        if not screen(bearing):
            return [], bearing
        return shown(pairs, self.sentences_per_doc), bearing

    def counts_alone(self, bearing: float | None) -> bool:
        """Whether the verifier's reading counts before (or without) the LLM's."""
        return self.gate is None or bearing is None or self.gate.verifier_passes(bearing)


# what the verifier's strongest sentence of a paper says of the claim, by its label
SENTENCE_READS = {
    "supports": "Sentence {k} supports the claim (supports {supports}, contradicts {contradicts}).",
    "contradicts": "Sentence {k} contradicts the claim (supports {supports}, contradicts {contradicts}).",
    "nei": "Sentence {k} bears on neither side of the claim (supports {supports}, contradicts {contradicts}).",
}


def shown(pairs: list[tuple[Evidence, VerifierResult]], n: int) -> list[tuple[Evidence, VerifierResult]]:
    """The (at most ``n``) sentences an abstract shows as its evidence, most likely rationale first (the rationale
    selector's pick, agent.judge.rationale): its likeliest sentence, and the next ones while they reach the selector's
    ``second_min``."""
    selector = get_selector()
    probs = [selector.p_rationale(ev.shortlist_score, r.p_supports, r.p_contradicts, r.p_nei) for ev, r in pairs]
    return [pairs[k] for k in selector.shown(probs, n)]


def premise(ev: Evidence) -> str:
    """What the verifier reads for one evidence sentence: title, where it sits, the sentence before, the sentence."""
    return placed_premise(ev.title, ev.sentence, place=ev.section, context=ev.context)


class Judgement(NamedTuple):
    evidence: list[Evidence]  # kept, renumbered from 1
    assessments: list[SourceAssessment]  # one per labelled abstract, in retrieval order
    silent: list[SilentSource]  # abstracts with no sentence bearing on the claim, with their weights, in order
    unlabelled: int  # abstracts with bearing sentences left unlabelled by labelled_docs
    no_stance: float  # P(nei) of the candidate sentence most likely to bear on the claim (1.0 with none)


def judge_sources(
    candidates: Sequence[Evidence],
    results: Sequence[VerifierResult],
    docs: Mapping[str, Abstract],
    rule: JudgeRule,
    weigh: Callable[[Abstract], tuple[float, dict[str, Any]]] = reputation,
) -> Judgement:
    """Which evidence and abstracts keep a stance under ``rule``, and how many abstracts were left out and why."""
    read: dict[str, list[tuple[Evidence, VerifierResult]]] = defaultdict(list)
    for ev, res in zip(candidates, results, strict=True):
        read[ev.doc_id].append((ev, res))
    retrieved = list(read)  # retrieval order
    by_doc: dict[str, list[tuple[Evidence, VerifierResult]]] = {}
    bearings: dict[str, float | None] = {}
    for doc_id in retrieved:
        strongest, bearings[doc_id] = rule.kept(read[doc_id])
        if strongest:
            by_doc[doc_id] = strongest
    judged = dict(by_doc)
    if rule.labelled_docs:
        first = sorted(judged, key=lambda d: judged[d][0][1].p_nei)[: rule.labelled_docs]
        judged = {d: judged[d] for d in first}

    kept: list[Evidence] = []
    assessments: list[SourceAssessment] = []
    for doc_id in retrieved:
        if doc_id not in judged:
            continue
        pairs = judged[doc_id]
        for ev, res in pairs:
            kept.append(ev.model_copy(update={"stance": res.label}))
        score = sum(res.score for _, res in pairs) / len(pairs)
        weight, inputs = weigh(docs[doc_id])
        best_ev, best = max(pairs, key=lambda p: abs(p[1].score))
        reading = written(
            SENTENCE_READS[best.label], k=best_ev.sentence_index + 1, supports=f"{best.p_supports:.2f}",
            contradicts=f"{best.p_contradicts:.2f}",
        )
        if not rule.counts_alone(bearings[doc_id]):  # the LLM decides whether it bears; until then it does not count
            score, reading = 0.0, written("Not counted until the LLM has read it: {reading}", reading=reading)
        assessments.append(
            SourceAssessment(
                doc_id=doc_id,
                label=grade(score),
                score=round(score, 4),
                reputation=weight,
                reputation_inputs=inputs,
                explanation=reading,
                stance_confidence=round(best.confidence, 4),
                bearing=bearings[doc_id],
                verifier_bearing=round(1.0 - pairs[0][1].p_nei, 5),
                verifier_p_claim=verifier_direction(pairs[0][1]),
            )
        )
    silent = []
    for doc_id in retrieved:
        if doc_id not in by_doc:
            weight, inputs = weigh(docs[doc_id])
            bearing = bearings[doc_id]
            silent.append(
                SilentSource(
                    doc_id=doc_id,
                    title=docs[doc_id].title,
                    reputation=weight,
                    reputation_inputs=inputs,
                    bearing=bearing,
                    reason=no_finding_reason(bearing),
                )
            )
    return Judgement(
        evidence=numbered(kept),
        assessments=assessments,
        silent=silent,
        unlabelled=len(by_doc) - len(judged),
        no_stance=round(min((res.p_nei for res in results), default=1.0), 4),
    )


def no_finding_reason(bearing: float | None) -> str:
    """Why an abstract none of whose sentences bears on the claim does not count, in a reader's words; the figure is
    the verifier's P(the abstract bears on the claim), which the result keeps as its number (``bearing``)."""
    if bearing is None:
        return written("The verifier finds no sentence reporting a finding on the claim.")
    return written("The verifier finds no sentence reporting a finding on the claim (it rates the paper {bears} "
                   "likely to bear on the claim).", bears=percent(bearing))


def verifier_direction(res: VerifierResult) -> float:
    """The verifier's own P(claim) against its opposite: supports / (supports + contradicts)."""
    both = res.p_supports + res.p_contradicts
    return round(res.p_supports / both, 4) if both > 0 else 0.5


def judge_rule(settings: Any) -> JudgeRule:
    """The product's rule: the calibrated evidence gate decides which abstracts bear, with the LLM when it reads
    direction (EVIDENCE_GATE=false: any bearing sentence does)."""
    j = settings.judge
    gate = load_calibration() if j.gate else None
    reads = j.direction != "verifier"
    return JudgeRule(j.sentences_per_doc, j.stance_min_prob, j.labelled_docs, gate=gate, llm_reads=reads)
