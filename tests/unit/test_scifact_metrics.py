"""Hand-computed toy cases for evals.scifact.scifact_metrics (official SciFact evaluator rules)."""

from __future__ import annotations

from typing import Any, Final

import pytest

from evals.scifact.scifact_metrics import (
    PRF,
    DocPrediction,
    abstract_metrics,
    predictions_from_jsonl_records,
    scifact_metrics,
    sentence_metrics,
)


def claim(cid: int, evidence: dict[str, tuple[str, list[list[int]]]]) -> dict[str, Any]:
    """Build a gold record as in claims_dev.jsonl: doc_id -> (label, rationale sets)."""
    return {
        "id": cid,
        "claim": f"claim {cid}",
        "evidence": {
            doc: [{"sentences": sents, "label": label} for sents in rats]
            for doc, (label, rats) in evidence.items()
        },
        "cited_doc_ids": [int(d) for d in evidence],
    }


def assert_prf(got: PRF, p: float, r: float, f1: float) -> None:
    assert got.precision == pytest.approx(p)
    assert got.recall == pytest.approx(r)
    assert got.f1 == pytest.approx(f1)


S: Final = "SUPPORT"
C: Final = "CONTRADICT"


def test_correct_label_incomplete_rationale() -> None:
    gold = [claim(1, {"10": (S, [[1, 2]])})]
    preds = {1: {"10": DocPrediction(S, [1])}}
    ab = abstract_metrics(gold, preds)
    # retrieved 1, relevant 1, label right -> label_only 1/1; {1,2} not within {1} -> rationale 0/1
    assert_prf(ab["label_only"], 1.0, 1.0, 1.0)
    assert_prf(ab["label_rationale"], 0.0, 0.0, 0.0)
    se = sentence_metrics(gold, preds)
    # sentence 1 is in gold set {1,2} but 2 is missing -> 0 correct; retrieved 1, relevant 2
    assert_prf(se["selection"], 0.0, 0.0, 0.0)
    assert_prf(se["selection_label"], 0.0, 0.0, 0.0)


def test_fourth_predicted_sentence_ignored_at_abstract_level_only() -> None:
    gold = [claim(1, {"10": (S, [[7]])})]
    late = {1: {"10": DocPrediction(S, [1, 2, 3, 7])}}
    ab = abstract_metrics(gold, late)
    # first 3 = {1,2,3} does not contain {7}
    assert_prf(ab["label_only"], 1.0, 1.0, 1.0)
    assert_prf(ab["label_rationale"], 0.0, 0.0, 0.0)
    se = sentence_metrics(gold, late)
    # no truncation: retrieved 4, correct 1 (sentence 7), relevant 1 -> P .25, R 1, F1 = 2*.25/1.25 = 0.4
    assert_prf(se["selection"], 0.25, 1.0, 0.4)
    assert_prf(se["selection_label"], 0.25, 1.0, 0.4)
    # same sentences, gold one first -> it is inside the first 3
    early = {1: {"10": DocPrediction(S, [7, 1, 2, 3])}}
    assert_prf(abstract_metrics(gold, early)["label_rationale"], 1.0, 1.0, 1.0)


def test_wrong_label() -> None:
    gold = [claim(1, {"10": (S, [[0]])})]
    preds = {1: {"10": DocPrediction(C, [0])}}
    ab = abstract_metrics(gold, preds)
    # retrieved 1, relevant 1, correct 0 for both abstract metrics
    assert_prf(ab["label_only"], 0.0, 0.0, 0.0)
    assert_prf(ab["label_rationale"], 0.0, 0.0, 0.0)
    se = sentence_metrics(gold, preds)
    # selection ignores the label: 1/1; selection+label needs it: 0
    assert_prf(se["selection"], 1.0, 1.0, 1.0)
    assert_prf(se["selection_label"], 0.0, 0.0, 0.0)


def test_extra_predicted_doc_lowers_precision() -> None:
    gold = [claim(1, {"10": (S, [[0]])})]
    preds = {1: {"10": DocPrediction(S, [0]), "20": DocPrediction(S, [0, 1])}}
    ab = abstract_metrics(gold, preds)
    # retrieved 2, relevant 1, correct 1 -> P .5, R 1, F1 = 2*.5/1.5 = 2/3
    assert_prf(ab["label_only"], 0.5, 1.0, 2 / 3)
    assert_prf(ab["label_rationale"], 0.5, 1.0, 2 / 3)
    se = sentence_metrics(gold, preds)
    # retrieved 1 + 2 = 3 sentences, correct 1, relevant 1 -> P 1/3, R 1, F1 = (2/3)/(4/3) = 0.5
    assert_prf(se["selection"], 1 / 3, 1.0, 0.5)
    assert_prf(se["selection_label"], 1 / 3, 1.0, 0.5)


def test_nei_gold_claims() -> None:
    gold = [claim(1, {"10": (S, [[0]])}), claim(2, {}), claim(3, {})]
    # claim 2 (NEI) gets a spurious prediction, claim 3 (NEI) correctly gets none
    preds = {1: {"10": DocPrediction(S, [0])}, 2: {"30": DocPrediction(C, [1, 2])}}
    ab = abstract_metrics(gold, preds)
    # retrieved 2, relevant 1 (NEI claims add 0), correct 1 -> P .5, R 1, F1 2/3
    assert_prf(ab["label_only"], 0.5, 1.0, 2 / 3)
    se = sentence_metrics(gold, preds)
    # retrieved 1 + 2 = 3, relevant 1, correct 1 -> P 1/3, R 1, F1 .5
    assert_prf(se["selection_label"], 1 / 3, 1.0, 0.5)


def test_all_nei_nothing_predicted_is_zero_not_nan() -> None:
    gold = [claim(1, {}), claim(2, {})]
    res = scifact_metrics(gold, {})
    assert set(res) == {
        "abstract_label_only",
        "abstract_label_rationale",
        "sentence_selection",
        "sentence_selection_label",
    }
    for v in res.values():
        assert_prf(v, 0.0, 0.0, 0.0)


def test_multiple_rationale_sets() -> None:
    gold = [claim(1, {"10": (S, [[2, 5], [7]])})]
    partial = {1: {"10": DocPrediction(S, [2, 7])}}
    # abstract: {7} is within {2,7} -> rationale correct
    assert_prf(abstract_metrics(gold, partial)["label_rationale"], 1.0, 1.0, 1.0)
    se = sentence_metrics(gold, partial)
    # relevant 2 + 1 = 3; sentence 2's set {2,5} incomplete -> 0; sentence 7's set {7} complete -> 1
    # P 1/2, R 1/3, F1 = 2*(1/6)/(5/6) = 0.4
    assert_prf(se["selection"], 0.5, 1 / 3, 0.4)
    full = {1: {"10": DocPrediction(S, [2, 5, 7])}}
    assert_prf(sentence_metrics(gold, full)["selection"], 1.0, 1.0, 1.0)


def test_multi_doc_claim_missing_doc_lowers_recall() -> None:
    gold = [claim(1, {"10": (S, [[0]]), "11": (S, [[3, 4]])})]
    preds = {1: {"10": DocPrediction(S, [0])}}
    ab = abstract_metrics(gold, preds)
    # retrieved 1, relevant 2, correct 1 -> P 1, R .5, F1 2/3
    assert_prf(ab["label_only"], 1.0, 0.5, 2 / 3)
    se = sentence_metrics(gold, preds)
    # relevant 1 + 2 = 3 sentences, retrieved 1, correct 1 -> P 1, R 1/3, F1 = (2/3)/(4/3) = .5
    assert_prf(se["selection"], 1.0, 1 / 3, 0.5)


# Official fixture of allenai/scifact-evaluator: fixture/gold_small.jsonl (= first 10 SciFact dev claims),
# fixture/predictions_small.jsonl and fixture/expected_metrics_small.json. Evidence transcribed below.
OFFICIAL_GOLD = [
    claim(1, {}),
    claim(3, {"14717500": (S, [[2, 5], [7]])}),
    claim(5, {"13734012": (S, [[4]])}),
    claim(13, {}),
    claim(36, {}),
    claim(42, {"18174210": (C, [[1, 9], [10]])}),
    claim(48, {"13734012": (C, [[4]])}),
    claim(49, {"5953485": (S, [[1], [2]])}),
    claim(50, {"12580014": (S, [[1]])}),
    claim(51, {"45638119": (C, [[4]])}),
]
OFFICIAL_PREDS = [
    {"id": 1, "evidence": {}},
    {"id": 3, "evidence": {}},
    {"id": 5, "evidence": {"13734012": {"sentences": [4], "label": "CONTRADICT"}}},
    {"id": 13, "evidence": {}},
    {"id": 36, "evidence": {"33409100": {"sentences": [8], "label": "CONTRADICT"}}},
    {"id": 42, "evidence": {"18174210": {"sentences": [1, 9, 10], "label": "CONTRADICT"}}},
    {"id": 48, "evidence": {"13734012": {"sentences": [7], "label": "CONTRADICT"}}},
    {"id": 49, "evidence": {"5953485": {"sentences": [2], "label": "SUPPORT"}}},
    {"id": 50, "evidence": {}},
    {"id": 51, "evidence": {"2140497": {"sentences": [6, 7], "label": "CONTRADICT"}}},
]


def test_official_evaluator_fixture() -> None:
    res = scifact_metrics(OFFICIAL_GOLD, predictions_from_jsonl_records(OFFICIAL_PREDS))
    # By hand: relevant abstracts = 7 (claims 3,5,42,48,49,50,51); retrieved = 6 predicted docs.
    # label-only correct: 42, 48, 49 (5 has wrong label, 36/51 wrong doc) -> P 3/6, R 3/7
    # rationalized: 42 ({1,9} within {1,9,10}), 49 ({2}); 48 predicts 7, gold {4} -> P 2/6, R 2/7
    # Sentences: relevant 3+1+3+1+2+1+1 = 12; retrieved 1+1+3+1+1+2 = 9.
    # selection: 5 -> 1 (label ignored), 42 -> 3, 49 -> 1 = 5 -> P 5/9, R 5/12
    # selection+label: 42 -> 3, 49 -> 1 = 4 -> P 4/9, R 4/12
    expected = {  # values of expected_metrics_small.json
        "abstract_label_only": (0.5, 0.42857142857142855, 0.4615384615384615),
        "abstract_label_rationale": (0.3333333333333333, 0.2857142857142857, 0.30769230769230765),
        "sentence_selection": (0.5555555555555556, 0.4166666666666667, 0.4761904761904762),
        "sentence_selection_label": (0.4444444444444444, 0.3333333333333333, 0.380952380952381),
    }
    for key, (p, r, f1) in expected.items():
        assert_prf(res[key], p, r, f1)


def test_missing_claim_in_preds_means_no_prediction() -> None:
    gold = [claim(1, {"10": (S, [[0]])}), claim(2, {"20": (C, [[1]])})]
    preds = {1: {"10": DocPrediction(S, [0])}}
    # retrieved 1, relevant 2, correct 1
    assert_prf(abstract_metrics(gold, preds)["label_only"], 1.0, 0.5, 2 / 3)


def test_int_doc_keys_are_normalised() -> None:
    gold = [claim(1, {"10": (S, [[0]])})]
    preds: dict[int, Any] = {1: {10: DocPrediction(S, [0])}}
    assert_prf(abstract_metrics(gold, preds)["label_rationale"], 1.0, 1.0, 1.0)


def test_errors() -> None:
    gold = [claim(1, {"10": (S, [[0]])})]
    with pytest.raises(ValueError, match="not in gold"):
        abstract_metrics(gold, {99: {}})
    bad: dict[int, Any] = {1: {"10": DocPrediction("NOT_ENOUGH_INFO", [0])}}  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="label"):
        sentence_metrics(gold, bad)
    with pytest.raises(ValueError, match="evidence"):
        abstract_metrics([{"id": 1, "claim": "x"}], {})
    mixed = [{"id": 1, "evidence": {"10": [{"sentences": [0], "label": S}, {"sentences": [1], "label": C}]}}]
    with pytest.raises(ValueError, match="one gold label"):
        abstract_metrics(mixed, {})
    overlapping = [claim(1, {"10": (S, [[0, 1], [1, 2]])})]
    with pytest.raises(ValueError, match="more than one gold rationale"):
        sentence_metrics(overlapping, {1: {"10": DocPrediction(S, [1])}})
