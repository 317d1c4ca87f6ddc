"""How far the verdict's confidence can be trusted: the risk–coverage table (abstract Label-Only precision and recall
when the product abstains below each confidence threshold, and how many claims with evidence still get a label) and
the reliability of the verdict confidence itself (does a verdict with confidence 0.8 take the right side about 80 %
of the time?).

A verdict's side is right when it matches the claim's SciFact label: supported / weakly / leaning supported for
SUPPORT, the refuted three for CONTRADICT, "Not enough evidence" for a claim without evidence. "Generally
controversial" takes no side and is left out of the reliability figures (counted separately)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent.judge.scoring import NOT_ENOUGH, UNDECIDED, verdict_sign
from agent.judge.verdict import abstain
from agent.result import Source
from agent.state import SourceAssessment, Verdict
from evals.reliability import confidence_reliability
from evals.scifact.records import scifact_predictions
from evals.scifact.scifact_metrics import abstract_metrics

THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def claim_label(claim: Mapping[str, Any]) -> str:
    """SUPPORT / CONTRADICT of a claim's evidence (SciFact gives one label per claim), NEI without evidence."""
    for sets in claim["evidence"].values():
        for s in sets:
            return str(s["label"])
    return "NEI"


def risk_coverage(
    claims: Sequence[Mapping[str, Any]], decided: Mapping[int, tuple[Any, Any, Any]], thresholds: Sequence[float]
) -> list[dict[str, Any]]:
    """One row per threshold: Label-Only P / R / F1 and the share of claims with evidence that get a label.
    ``decided``: claim id -> (evidence, assessments, verdict decided without a threshold)."""
    with_evidence = [int(c["id"]) for c in claims if c["evidence"]]
    rows = []
    for t in thresholds:
        preds = {i: scifact_predictions(ev, assessed, abstain(v, t)) for i, (ev, assessed, v) in decided.items()}
        lo = abstract_metrics(claims, preds)["label_only"]
        labelled = sum(bool(preds.get(i)) for i in with_evidence)
        rows.append(
            {
                "threshold": t,
                "precision": round(lo.precision, 4),
                "recall": round(lo.recall, 4),
                "f1": round(lo.f1, 4),
                "coverage": round(labelled / max(1, len(with_evidence)), 4),
            }
        )
    return rows


def verdict_reliability(claims: Sequence[Mapping[str, Any]], verdicts: Mapping[int, Any]) -> dict[str, Any]:
    """Reliability (ECE, bins) of the verdict confidence over claims whose verdict takes a side or finds none."""
    gold = {int(c["id"]): claim_label(c) for c in claims}
    confidence, right_side, controversial = [], [], 0
    for i, v in verdicts.items():
        if v.label == NOT_ENOUGH:
            right = gold[i] == "NEI"
        elif verdict_sign(v.label):
            right = gold[i] == ("SUPPORT" if verdict_sign(v.label) > 0 else "CONTRADICT")
        else:
            controversial += 1
            continue
        confidence.append(v.confidence)
        right_side.append(right)
    rel = confidence_reliability(confidence, right_side)
    return {**rel, "controversial_left_out": controversial}


def undecided(verdict: Verdict) -> Verdict:
    """The verdict before abstention: a "Cannot decide" verdict gives back the label it leaned to."""
    if verdict.label == UNDECIDED and verdict.leaning:
        return verdict.model_copy(update={"label": verdict.leaning, "leaning": None})
    return verdict


def decided_from_records(records: Sequence[Mapping[str, Any]]) -> dict[int, tuple[Any, Any, Any]]:
    """claim id -> (evidence, assessments, verdict before abstention), read back from eval records."""
    out: dict[int, tuple[Any, Any, Any]] = {}
    for rec in records:
        res = rec["result"]
        if res.get("verdict") is None:
            continue
        out[int(rec["id"])] = (
            [Source(**s) for s in res["sources"]],
            [SourceAssessment(**a) for a in res["assessments"]],
            undecided(Verdict(**res["verdict"])),
        )
    return out


def calibration(
    claims: Sequence[Mapping[str, Any]], decided: Mapping[int, tuple[Any, Any, Any]], min_confidence: float | None
) -> dict[str, Any]:
    """The threshold in force, the reliability of the verdict confidence (over the verdicts before abstention) and
    the risk-coverage table with that threshold among its rows. ``decided`` as for ``risk_coverage``."""
    thresholds = sorted({*THRESHOLDS, *([min_confidence] if min_confidence is not None else [])})
    return {
        "min_confidence": min_confidence,
        "verdict_reliability": verdict_reliability(claims, {i: d[2] for i, d in decided.items()}),
        "risk_coverage": risk_coverage(claims, decided, thresholds),
    }


def run_calibration(
    records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]], min_confidence: float | None
) -> dict[str, Any] | None:
    """``calibration`` of a run, read back from its records; None for records made before verdicts carried a
    confidence."""
    if not any("confidence" in (r["result"].get("verdict") or {}) for r in records):
        return None
    return calibration(claims, decided_from_records(records), min_confidence)


def calibration_lines(
    rel: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], min_confidence: float | None
) -> list[str]:
    """Markdown: the verdict confidence's ECE and the risk-coverage table, the threshold in force marked."""
    lines = [
        f"Verdict confidence: ECE {rel['ece']:.3f} over {rel['n']} claims whose verdict takes a side or finds none "
        f"({rel['controversial_left_out']} controversial left out); reliability diagram beside this file "
        "(`*_reliability.png`).",
        "",
        'Risk–coverage: below the threshold the verdict is "Cannot decide" and the claim gets no label. Coverage = '
        "share of claims with evidence that still get a label.",
        "",
        "| min_confidence | Label-Only P | R | F1 | coverage |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        mark = " (in force)" if row["threshold"] == min_confidence else ""
        lines.append(
            f"| {row['threshold']}{mark} | {row['precision']:.3f} | {row['recall']:.3f} | {row['f1']:.3f} | "
            f"{row['coverage']:.2f} |"
        )
    return lines
