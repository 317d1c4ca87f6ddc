"""What the answer and a "why?" follow-up rest on, from the check's own figures, never the LLM's: the evidence the
LLM may write the answer from (``bearing_evidence``: only the abstracts the verdict counts), and the reckoning a
"why?" follow-up shows (``reckoning``: the verdict's sentence (agent.judge.sentence), each counted paper with its
label, confidence and weight, the rule, the threshold, what was read and not counted)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent.grouping import grouped
from agent.judge.scoring import GRADE_SCORE, NOT_ENOUGH, UNDECIDED, counted, percent, weight_in_words
from agent.judge.sentence import verdict_sentence
from agent.result import CheckResult
from agent.state import Evidence, SourceAssessment, Verdict
from tools.index.live_docs import removal_mark
from tools.text.i18n import t, written
from tools.text.language import LANGUAGES


def bearing_evidence(evidence: Sequence[Evidence], assessments: Sequence[SourceAssessment]) -> list[Evidence]:
    """The evidence sentences of the abstracts the verdict counts: what the answer may report. Sentences of
    abstracts that bear on neither side are listed among the sources as read, never quoted as the answer."""
    docs = {a.doc_id for a in counted(assessments)}
    return [ev for ev in evidence if ev.doc_id in docs]


def supported_side(p_claim: float) -> str:
    """What a source the LLM read supports, in words: "supports the claim" or "supports the opposite"."""
    return t("supports the claim") if p_claim > 0.5 else t("supports the opposite")


def side_words(p_claim: float, who: str = "") -> str:
    """Which statement a source supports, in words, from its P(claim) (the calibrated probability that the evidence
    supports the claim rather than its opposite) and how sure the reading is of it (the probability of the side it
    takes): "97% sure it supports the opposite", or with ``who`` read it, "the LLM is 97% sure it supports the
    opposite"."""
    sure = t("{percent} sure it {side}", percent=percent(max(p_claim, 1 - p_claim)), side=supported_side(p_claim))
    return t("{who} is {sure}", who=who, sure=sure) if who else sure


def direction_words(p_claim: float | None, judged_by: str) -> str:
    """How a source's side was read, from its P(claim) and who judged it (SourceAssessment's fields): by the LLM
    against the opposite (or by whichever judge set its P(claim)), or by the verifier alone."""
    if p_claim is not None:
        who = {"verifier+llm": t("the LLM"), "reader": t("the abstract reader")}.get(judged_by, "")
        return side_words(p_claim, who)
    return t("read by the verifier alone")


def reckoning(result: CheckResult, min_confidence: float, removed: Mapping[str, str] | None = None) -> dict[str, Any]:
    """How the verdict was reached, from the check's own figures: each counted paper with its label, grade, stance
    confidence, weight and the weight's inputs; the rule that turned them into the label; the confidence against
    the threshold; and the papers read but not counted, with why. `removed` (doc id -> day) gives each paper that
    has left the index since the check its `removed` mark ("removed from the library on <day>"; None for the
    others): the figures stay the check's own."""
    removed = removed or {}

    def gone(doc_id: str) -> str | None:
        return removal_mark(removed[doc_id]) if doc_id in removed else None

    v = result.verdict
    if v is None:
        return {"kind": "why", "error": "this check has no verdict yet"}
    papers_shown = grouped(result.sources, lambda src: src.doc_id)  # the sentences of a paper share its number
    numbers = {doc_id: list(dict.fromkeys(src.n for src in srcs)) for doc_id, srcs in papers_shown.items()}
    titles = {doc_id: srcs[0].title for doc_id, srcs in papers_shown.items()}
    counted_ids = {a.doc_id for a in counted(result.assessments)}
    rows: list[dict[str, Any]] = []
    left: list[dict[str, Any]] = []
    for a in result.assessments:
        row = {
            "numbers": numbers.get(a.doc_id, []),
            "title": titles.get(a.doc_id, a.doc_id),
            "label": a.label,
            "grade": GRADE_SCORE[a.label],
            "stance_confidence": round(a.stance_confidence, 2),
            "weight": a.reputation,
            "weight_inputs": weight_in_words(a.reputation_inputs),
            "reputation_inputs": a.reputation_inputs,
            "direction": direction_words(a.p_claim, a.judged_by),
            "p_claim": a.p_claim, "judged_by": a.judged_by,
            "removed": gone(a.doc_id), "removed_on": removed.get(a.doc_id),
        }
        if a.doc_id in counted_ids:
            rows.append(row)
        else:
            why = written("its weight is 0 (retracted)") if a.reputation <= 0 else written(
                "its stance is too weak to grade")
            if GRADE_SCORE[a.label] == 0 and a.p_claim is not None:
                why = written("the LLM cannot tell which way it points: it is only {sure} sure it {side}",
                              sure=percent(max(a.p_claim, 1 - a.p_claim)), side=supported_side(a.p_claim))
            elif a.bearing is not None and GRADE_SCORE[a.label] == 0:
                why = written("it is {bears} likely to bear on the claim, too little to count",
                              bears=percent(a.bearing))
            left.append({**row, "why": why})
    left += [
        {"numbers": numbers.get(s.doc_id, []), "title": s.title,
         "why": s.reason or written("no sentence bears on the claim"),
         "removed": gone(s.doc_id), "removed_on": removed.get(s.doc_id)}
        for s in result.silent
    ]
    total = sum(r["weight"] for r in rows)
    formula = " + ".join(f"{r['grade']:+.2f}×{r['weight']:.2f}" for r in rows)
    if rows:
        grade = written("Weighted grade of the papers counted: ({formula}) / {total} = {score}.", formula=formula,
                        total=f"{total:.2f}", score=f"{v.score:+.2f}")
    else:
        grade = written("No paper counts, so there is no weighted grade.")
    rule = f"{grade} {RULE}"
    threshold = checked_threshold(result, min_confidence)
    return {
        "kind": "why",
        "summary": verdict_sentence(v, result.assessments, result.silent),
        # the same sentence in each language claimtrace speaks, for a view that speaks one of them
        "summaries": {code: verdict_sentence(v, result.assessments, result.silent, language=code)
                      for code in LANGUAGES},
        "counted": rows,
        "rule": rule,
        "confidence": threshold_words(v, threshold),
        "not_counted": left,
        "change": change_words(v, threshold),
    }


RULE = written(
    "Papers on one side only: “Generally …” at ±0.66 or beyond, else “Weakly …”. Papers on both sides: “Generally "
    "…” beyond ±0.66, “Disputed but leaning …” between ±0.33 and ±0.66, else “Generally controversial”."
)


def checked_threshold(result: CheckResult, configured: float) -> float:
    """The least confidence the check gave a verdict at: the one it ran with where its run info records it (a thread
    keeps checks made before the setting changed), else the configured one."""
    recorded = result.run.settings.get("judge", {}).get("min_confidence")
    return float(recorded) if isinstance(recorded, int | float) and not isinstance(recorded, bool) else configured


def _figure(value: float, other: float) -> str:
    """A figure at two decimals, with four where two would show it equal to ``other`` when it is not."""
    shown = f"{value:.2f}"
    return f"{shown} ({value:.4f})" if shown == f"{other:.2f}" and value != other else shown


def threshold_words(v: Verdict, min_confidence: float) -> str:
    """The verdict's confidence against the least confidence a verdict is given at, and what that means for its
    label (agent.judge.verdict.abstain): below it, a verdict that takes a side or finds a dispute becomes “Cannot
    decide”; “Not enough evidence” stands whatever the confidence."""
    below = v.confidence < min_confidence
    figures = {"confidence": _figure(v.confidence, min_confidence), "threshold": f"{min_confidence:.2f}"}
    if v.label == NOT_ENOUGH:
        return written("Confidence {confidence} against the threshold {threshold}: {where}; the threshold applies only "
                       "to a verdict that takes a side or finds a dispute, so “{label}” stands either way.",
                       where=written("below it") if below else written("at or above it"), label=NOT_ENOUGH,
                       **figures)
    if v.label == UNDECIDED and below and v.leaning:
        return written("Confidence {confidence} against the threshold {threshold}: below it, so the verdict is "
                       "“{label}” rather than “{leaning}”.", label=UNDECIDED, leaning=v.leaning, **figures)
    if below and v.label != UNDECIDED:
        return written("Confidence {confidence} against the threshold {threshold}: below it, though the check gave "
                       "“{label}” at the threshold it ran with.", label=v.label, **figures)
    if below:
        return written("Confidence {confidence} against the threshold {threshold}: below it, so the verdict is "
                       "“{label}”.", label=UNDECIDED, **figures)
    if v.label == UNDECIDED:
        return written("Confidence {confidence} against the threshold {threshold}: at or above it, though the check "
                       "gave “{label}” at the threshold it ran with.", label=UNDECIDED, **figures)
    return written("Confidence {confidence} against the threshold {threshold}: at or above it, so the verdict is "
                   "“{label}” rather than “{undecided}”.", label=v.label, undecided=UNDECIDED, **figures)


def change_words(v: Verdict, min_confidence: float) -> str:
    """What would change the verdict, from its own figures."""
    if v.label == NOT_ENOUGH:
        return written("A paper that states a finding for or against the claim would give it a verdict.")
    if v.label == UNDECIDED:
        return written("More papers on the side it leans to would raise the confidence towards {threshold}.",
                       threshold=f"{min_confidence:.2f}")
    return written("A paper on the other side would make it disputed; the confidence falling below {threshold} "
                   "would make it “{undecided}”.", threshold=f"{min_confidence:.2f}", undecided=UNDECIDED)
