"""Official SciFact evaluation: abstract-level and sentence-level precision / recall / F1.

Re-implements the rules of the SciFact leaderboard evaluator (Wadden et al., EMNLP 2020,
https://arxiv.org/abs/2004.14974), as coded in ``allenai/scifact-evaluator`` file ``evaluator/eval.py``
(class ``Evaluator``), which agrees with ``allenai/scifact`` file ``verisci/evaluate/lib/metrics.py``.
The official fixture ``fixture/{gold,predictions,expected_metrics}_small.json[l]`` of the evaluator repo is
reproduced in ``tests/unit/test_scifact_metrics.py``.

Rules (per claim; counts are summed over all claims, i.e. micro-averaged, then P/R/F1 are computed once):

Abstract level
    * ``relevant``  += number of gold evidence docs of the claim (NEI claims add 0).
    * ``retrieved`` += number of predicted docs (all predictions are SUPPORT/CONTRADICT; NEI docs are absent).
    * Label-Only: a predicted doc is correct if it is a gold evidence doc and its label equals the gold label.
    * Label+Rationale: additionally, the set of the *first* ``MAX_ABSTRACT_SENTS`` (= 3) predicted sentences,
      in the order given, must contain (superset) at least one complete gold rationale set.

Sentence level (no truncation: the official code notes that over-prediction is already penalised)
    * ``relevant``  += total number of sentences over all gold rationale sets of all evidence docs.
    * ``retrieved`` += ``len(sentences)`` of every predicted doc (gold or not; duplicates are counted, as in
      the official code, which uses ``len`` of the list for retrieved but a set for correct).
    * Selection: a predicted sentence of a gold evidence doc is correct if it belongs to a gold rationale set
      and *every* sentence of that set is predicted for that doc. The label is ignored.
    * Selection+Label: the Selection-correct sentences of a doc count only if the doc's predicted label equals
      the gold label.
    * A predicted sentence lying in two gold rationale sets of one doc is an error (official code asserts).

P = correct / retrieved, R = correct / relevant, F1 = 2PR / (P + R); each is 0.0 when its denominator is 0.

Differences in interface only: predictions are a mapping ``claim id -> {doc_id: DocPrediction}`` instead of a
jsonl file in gold order. A gold claim missing from ``preds`` counts as "no documents predicted"; a predicted
claim id absent from ``gold`` raises ``ValueError`` (the official evaluator raises on any id mismatch).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

MAX_ABSTRACT_SENTS = 3
ALLOWED_LABELS: frozenset[str] = frozenset({"SUPPORT", "CONTRADICT"})

Label = Literal["SUPPORT", "CONTRADICT"]


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float


@dataclass
class DocPrediction:
    """Prediction for one (claim, abstract) pair. NEI abstracts are simply left out of the claim's dict."""

    label: Label
    sentences: list[int]


Prediction = dict[str, DocPrediction]  # doc_id (str, as in the gold "evidence" keys) -> prediction


@dataclass(frozen=True)
class _GoldDoc:
    label: str
    rationales: tuple[frozenset[int], ...]


def safe_divide(num: float, denom: float) -> float:
    return num / denom if denom else 0.0


def prf(correct: float, retrieved: float, relevant: float) -> PRF:
    """Precision / recall / F1 from counts, 0.0 wherever a denominator is 0 (as the official evaluator)."""
    p = safe_divide(correct, retrieved)
    r = safe_divide(correct, relevant)
    return PRF(precision=p, recall=r, f1=safe_divide(2 * p * r, p + r))


def _unify_gold(claim: Mapping[str, Any]) -> dict[str, _GoldDoc]:
    """Gold evidence of one claim record, label moved to the abstract level (official ``unify_label``)."""
    if "evidence" not in claim:
        raise ValueError(f"gold claim {claim.get('id')!r} has no 'evidence' field (unlabelled test claim?)")
    res: dict[str, _GoldDoc] = {}
    for doc_id, rationales in claim["evidence"].items():
        labels = {r["label"] for r in rationales}
        if len(labels) != 1:
            raise ValueError(f"claim {claim['id']}, doc {doc_id}: expected one gold label, got {labels}")
        res[str(doc_id)] = _GoldDoc(
            label=labels.pop(), rationales=tuple(frozenset(r["sentences"]) for r in rationales)
        )
    return res


def _pairs(
    gold: Sequence[Mapping[str, Any]], preds: Mapping[int, Prediction]
) -> Iterable[tuple[dict[str, _GoldDoc], dict[str, DocPrediction]]]:
    """Yield (gold evidence, predictions) per gold claim, after validating ids and labels."""
    gold_ids = [g["id"] for g in gold]
    if len(set(gold_ids)) != len(gold_ids):
        raise ValueError("duplicate claim ids in gold")
    unknown = set(preds) - set(gold_ids)
    if unknown:
        raise ValueError(f"predictions for claim ids not in gold: {sorted(unknown)[:10]}")
    for claim in gold:
        claim_preds = {str(k): v for k, v in preds.get(claim["id"], {}).items()}
        for doc_id, doc_pred in claim_preds.items():
            if doc_pred.label not in ALLOWED_LABELS:
                raise ValueError(
                    f"claim {claim['id']}, doc {doc_id}: label {doc_pred.label!r} not in "
                    f"{sorted(ALLOWED_LABELS)} (leave NEI documents out of the prediction instead)"
                )
        yield _unify_gold(claim), claim_preds


def _contains_evidence(gold_rationales: Iterable[frozenset[int]], predicted: set[int]) -> bool:
    return any(rat <= predicted for rat in gold_rationales)


def _count_rationale_sents(gold_rationales: Sequence[frozenset[int]], predicted: set[int]) -> int:
    n_correct = 0
    for ix in predicted:
        gold_sets = [rat for rat in gold_rationales if ix in rat]
        if len(gold_sets) > 1:
            raise ValueError(f"sentence {ix} belongs to more than one gold rationale set")
        if gold_sets and gold_sets[0] <= predicted:
            n_correct += 1
    return n_correct


def abstract_metrics(gold: Sequence[Mapping[str, Any]], preds: Mapping[int, Prediction]) -> dict[str, PRF]:
    """Abstract-level P/R/F1. Keys: ``label_only`` and ``label_rationale`` (official "rationalized").

    ``gold``: claim records as in ``claims_dev.jsonl``. ``preds``: claim id -> {doc_id: DocPrediction}.
    """
    relevant = retrieved = correct_label_only = correct_rationalized = 0
    for gold_ev, claim_preds in _pairs(gold, preds):
        relevant += len(gold_ev)
        for doc_id, doc_pred in claim_preds.items():
            retrieved += 1
            gold_doc = gold_ev.get(doc_id)
            if gold_doc is None or doc_pred.label != gold_doc.label:
                continue
            correct_label_only += 1
            if _contains_evidence(gold_doc.rationales, set(doc_pred.sentences[:MAX_ABSTRACT_SENTS])):
                correct_rationalized += 1
    return {
        "label_only": prf(correct_label_only, retrieved, relevant),
        "label_rationale": prf(correct_rationalized, retrieved, relevant),
    }


def sentence_metrics(gold: Sequence[Mapping[str, Any]], preds: Mapping[int, Prediction]) -> dict[str, PRF]:
    """Sentence-level P/R/F1. Keys: ``selection`` and ``selection_label`` (official "sentence_label")."""
    relevant = retrieved = correct_selection = correct_label = 0
    for gold_ev, claim_preds in _pairs(gold, preds):
        relevant += sum(len(rat) for doc in gold_ev.values() for rat in doc.rationales)
        for doc_id, doc_pred in claim_preds.items():
            retrieved += len(doc_pred.sentences)
            gold_doc = gold_ev.get(doc_id)
            if gold_doc is None:
                continue
            n_correct = _count_rationale_sents(gold_doc.rationales, set(doc_pred.sentences))
            correct_selection += n_correct
            if doc_pred.label == gold_doc.label:
                correct_label += n_correct
    return {
        "selection": prf(correct_selection, retrieved, relevant),
        "selection_label": prf(correct_label, retrieved, relevant),
    }


def scifact_metrics(gold: Sequence[Mapping[str, Any]], preds: Mapping[int, Prediction]) -> dict[str, PRF]:
    """All four official metrics, keyed ``abstract_label_only``, ``abstract_label_rationale``,
    ``sentence_selection``, ``sentence_selection_label``."""
    res = {f"abstract_{k}": v for k, v in abstract_metrics(gold, preds).items()}
    res.update({f"sentence_{k}": v for k, v in sentence_metrics(gold, preds).items()})
    return res


def predictions_from_jsonl_records(records: Iterable[Mapping[str, Any]]) -> dict[int, Prediction]:
    """Convert records in the official prediction format
    ``{"id": int, "evidence": {doc_id: {"sentences": [...], "label": "SUPPORT"|"CONTRADICT"}}}``."""
    out: dict[int, Prediction] = {}
    for rec in records:
        if int(rec["id"]) in out:
            raise ValueError(f"duplicate prediction for claim {rec['id']}")
        out[int(rec["id"])] = {
            str(doc_id): DocPrediction(label=p["label"], sentences=list(p["sentences"]))
            for doc_id, p in rec["evidence"].items()
        }
    return out
