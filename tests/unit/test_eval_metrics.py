"""The SciFact evaluation harness on toy states and records (no LLM, no index): per-claim records, SciFact
predictions, the flag proxy and metric assembly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.state import AnswerSentence, Evidence, Query, RankedDoc, SourceAssessment, Usage, Verdict
from evals.scifact.metrics import (
    FAITHFULNESS_KEYS,
    answer_faithfulness,
    flag_counts,
    full_metrics,
    retrieval_only_metrics,
    should_flag,
    verifier_dev_metrics,
)
from evals.scifact.records import make_record, rankings_from_state, scifact_predictions

CLAIM_TEXT = "Drug X lowers blood pressure."
CONFIG = {"llm": "scripted:x", "index": "fp", "retrieval_depth": 50}
# The metric groups of every evaluation result (a retrieval-only run has them too, None where unmeasured).
METRIC_KEYS = {
    "retrieval",
    "retrieval_cited",
    "claims",
    "abstract",
    "sentence",
    "verifier",
    "faithfulness",
    "cost",
    "baselines",
    "calibration",
}

# Gold: doc "10" SUPPORT with rationale {1, 2}; doc "20" CONTRADICT with rationale {0}; cited also "30".
GOLD_CLAIM: dict[str, Any] = {
    "id": 7,
    "claim": CLAIM_TEXT,
    "evidence": {
        "10": [{"sentences": [1, 2], "label": "SUPPORT"}],
        "20": [{"sentences": [0], "label": "CONTRADICT"}],
    },
    "cited_doc_ids": [10, 20, 30],
}
NEI_CLAIM: dict[str, Any] = {"id": 8, "claim": "Nothing is known.", "evidence": {}, "cited_doc_ids": [40]}


def predictions_from_state(state: dict[str, Any]) -> Any:
    return scifact_predictions(state.get("evidence", []), state.get("assessments", []))


def record_from_state(claim: dict[str, Any], state: dict[str, Any], seconds: float, config: Any) -> dict[str, Any]:
    return make_record(int(claim["id"]), state, seconds, config)


def ev(n: int, doc_id: str, idx: int) -> Evidence:
    return Evidence(n=n, doc_id=doc_id, title="T", sentence=f"s{idx}", sentence_index=idx)


def assessment(doc_id: str, label: str) -> SourceAssessment:
    return SourceAssessment(doc_id=doc_id, label=label, score=0.0, reputation=1.0, explanation="")


def toy_state() -> dict[str, Any]:
    return {
        "claim": CLAIM_TEXT,
        "queries": [
            Query(text=CLAIM_TEXT, kind="claim"),
            Query(text="Does X lower BP?", kind="question"),
            Query(text="It is not true that drug X lowers blood pressure.", kind="opposite"),
        ],
        "ranked_lists": {
            f"bm25_search|{CLAIM_TEXT}": ["10", "99", "20"],
            f"dense_sentence_search|{CLAIM_TEXT}": ["20", "10"],
            "bm25_search|Does X lower BP?": ["55"],
        },
        "candidates": [RankedDoc(doc_id=d, score=1.0) for d in ("10", "20", "55", "30")],
        # evidence order = the order assess kept it: doc 10 sentence 2 first, then 1; doc 20 sentence 5; doc 30
        "evidence": [ev(1, "10", 2), ev(2, "10", 1), ev(3, "20", 5), ev(4, "30", 0), ev(5, "55", 3)],
        "assessments": [
            assessment("10", "Mostly True"),
            assessment("20", "Somewhat False"),
            assessment("30", "No Evidence"),
            assessment("55", "True"),
        ],
        "verdict": Verdict(label="Generally supported", score=0.5, unweighted_score=0.5),
        "sentences": [
            # cites a gold rationale sentence and is not flagged: correct "not flagged"
            AnswerSentence(text="X lowers BP.", citations=[1], status="supported", flagged=False),
            # cites only non-gold sentences and is flagged: correct flag
            AnswerSentence(text="X is harmful.", citations=[3, 4], status="unsupported", flagged=True),
            # cites a gold sentence but was flagged: a false alarm under the proxy
            AnswerSentence(text="X works well.", citations=[2], status="contradicted", flagged=True),
            # cites a non-gold sentence and was not flagged: a missed flag
            AnswerSentence(text="X is cheap.", citations=[5], status="supported", flagged=False),
            # uncited, with an invalid citation that was stripped: should be and is flagged
            AnswerSentence(text="X is old.", citations=[], invalid_citations=[9, 12], status="uncited", flagged=True),
        ],
        "usage": Usage(calls=2, prompt_tokens=100, completion_tokens=20),
        "timings": {"total": 3.0},
    }


# --- predictions ---------------------------------------------------------------------------------------------


def test_predictions_keep_labelled_abstracts_with_sentences_in_pipeline_order():
    preds = predictions_from_state(toy_state())
    assert set(preds) == {"10", "20", "55"}  # "No Evidence" abstract 30 is left out (NEI)
    assert preds["10"].label == "SUPPORT" and preds["10"].sentences == [2, 1]
    assert preds["20"].label == "CONTRADICT" and preds["20"].sentences == [5]
    assert preds["55"].label == "SUPPORT" and preds["55"].sentences == [3]


def test_predictions_of_an_empty_state_are_empty():
    assert predictions_from_state({"claim": "c"}) == {}


def test_rankings_use_fused_candidates_and_the_claim_query_lists_as_baselines():
    r = rankings_from_state(toy_state())
    assert r == {"fused": ["10", "20", "55", "30"], "bm25": ["10", "99", "20"], "dense": ["20", "10"]}


# --- the flag proxy ------------------------------------------------------------------------------------------


def test_should_flag_proxy():
    gold = {("10", 1), ("10", 2), ("20", 0)}
    by_n = {1: [("10", 2)], 2: [("20", 5)], 3: [("20", 0)], 4: [("30", 1), ("10", 1)]}
    assert not should_flag({"citations": [1]}, by_n, gold)
    assert should_flag({"citations": [2]}, by_n, gold)
    assert not should_flag({"citations": [2, 3]}, by_n, gold)  # one gold citation is enough
    assert should_flag({"citations": []}, by_n, gold)  # uncited
    assert should_flag({"citations": [99]}, by_n, gold)  # names no evidence
    assert not should_flag({"citations": [4]}, by_n, gold)  # a paper with a gold sentence among its cited ones


def test_flag_counts_on_a_toy_state():
    rec = record_from_state(GOLD_CLAIM, toy_state(), 3.0, CONFIG)
    # should: sentences 2, 4, 5 (3 of them); flagged: 2, 3, 5; both: 2, 5
    assert flag_counts(rec, GOLD_CLAIM) == (2, 3, 3)


def test_every_sentence_of_an_nei_claim_should_be_flagged():
    rec = record_from_state(NEI_CLAIM, toy_state(), 1.0, CONFIG)
    assert flag_counts(rec, NEI_CLAIM) == (3, 3, 5)


# --- metrics from records --------------------------------------------------------------------------------------


def test_full_metrics_from_records(tmp_path: Path):
    rec = record_from_state(GOLD_CLAIM, toy_state(), 3.0, CONFIG)
    rec = json.loads(json.dumps(rec))  # exactly what the predictions file holds
    nei_state = {**toy_state(), "assessments": [], "evidence": [], "sentences": [], "usage": Usage(calls=1)}
    nei = json.loads(json.dumps(record_from_state(NEI_CLAIM, nei_state, 1.0, CONFIG)))
    vfile = tmp_path / "verifier_dev.json"
    vfile.write_text(json.dumps({"dev": {"macro_f1": 0.81, "accuracy": 0.83}}))
    m = full_metrics([rec, nei], [GOLD_CLAIM, NEI_CLAIM], verifier_results=vfile)

    assert set(m) == METRIC_KEYS
    # Abstract level: 3 predicted (10 SUPPORT ok, 20 CONTRADICT ok, 55 wrong), 2 relevant.
    # Label+Rationale: doc 10 predicts {2, 1} ⊇ {1, 2}; doc 20 predicts {5} ⊉ {0}.
    lo = m["abstract"]["label_only"]
    assert lo["precision"] == pytest.approx(2 / 3) and lo["recall"] == 1.0
    lr = m["abstract"]["label_rationale"]
    assert lr["precision"] == pytest.approx(1 / 3) and lr["recall"] == pytest.approx(1 / 2)
    # Sentence level: retrieved 2 + 1 + 1 = 4; relevant 3; correct: doc 10 sentences 1, 2 -> 2.
    sel = m["sentence"]["selection"]
    assert sel["precision"] == pytest.approx(2 / 4) and sel["recall"] == pytest.approx(2 / 3)
    assert m["sentence"]["selection_label"] == sel
    # Retrieval: only claim 7 has evidence {10, 20}; fused = 10, 20, 55, 30.
    assert m["retrieval"]["recall@3"] == 1.0 and m["retrieval"]["map@5"] == 1.0
    # BEIR definition: claim 7 gold {10, 20, 30} -> recall@3 2/3; claim 8 gold {40}: not found -> 0.
    assert m["retrieval_cited"]["recall@3"] == pytest.approx((2 / 3 + 0) / 2)
    assert m["retrieval_cited"]["recall@5"] == pytest.approx((1 + 0) / 2)
    # Baselines from the claim query's lists: BM25 10, 99, 20 -> recall@3 1.0; dense 20, 10 -> 1.0
    assert m["baselines"]["bm25"]["retrieval"]["recall@3"] == 1.0
    assert m["baselines"]["bm25"]["retrieval"]["map@5"] == pytest.approx((1 + 2 / 3) / 2)
    assert set(m["baselines"]) == {"bm25", "dense"}
    assert set(m["baselines"]["dense"]) == {"retrieval", "retrieval_cited"}
    # Faithfulness: valid citations 1 + 2 + 1 + 1 = 5, invalid 2 -> 5/7; supported 2 of 5 sentences.
    assert m["faithfulness"]["citation_validity"] == pytest.approx(5 / 7)
    assert m["faithfulness"]["attributable_rate"] == pytest.approx(2 / 5)
    assert m["faithfulness"]["draft_attributable_rate"] == pytest.approx(2 / 5)  # nothing was corrected
    assert m["faithfulness"]["answers_corrected"] == 0.0
    # Flags: claim 7 (2, 3, 3); claim 8 has no sentences.
    assert m["verifier"] == {
        "macro_f1": 0.81,
        "accuracy": 0.83,
        "flag_precision": pytest.approx(2 / 3),
        "flag_recall": pytest.approx(2 / 3),
    }
    assert m["cost"] == {
        "seconds_per_claim": 2.0,
        "llm_calls_per_claim": 1.5,
        "prompt_tokens_per_claim": 50.0,
        "completion_tokens_per_claim": 10.0,
    }


def test_calibration_reads_each_verdict_before_abstention():
    cfg = {**CONFIG, "labels": [0.0, 0, 0.5]}
    unsure = Verdict(
        label="Cannot decide", leaning="Generally supported", score=0.5, unweighted_score=0.5, confidence=0.4
    )
    rec = json.loads(json.dumps(record_from_state(GOLD_CLAIM, {**toy_state(), "verdict": unsure}, 3.0, cfg)))
    m = full_metrics([rec], [GOLD_CLAIM], verifier_results=Path("/nonexistent.json"))
    assert m["abstract"]["label_only"]["recall"] == 0.0  # the product abstained: no label
    cal = m["calibration"]
    assert cal["min_confidence"] == 0.5
    rows = {r["threshold"]: r for r in cal["risk_coverage"]}
    assert rows[0.0]["coverage"] == 1.0 and rows[0.0]["recall"] > 0  # without a threshold it leans supported
    assert rows[0.5]["coverage"] == 0.0 and rows[0.5]["recall"] == 0.0
    rel = cal["verdict_reliability"]  # leaning supported on a SUPPORT claim, at confidence 0.4: right, ECE 0.6
    assert rel["n"] == 1 and rel["bins"][0]["accuracy"] == 1.0 and rel["ece"] == pytest.approx(0.6)


def test_full_metrics_use_only_claims_with_a_record():
    rec = json.loads(json.dumps(record_from_state(GOLD_CLAIM, toy_state(), 3.0, CONFIG)))
    m = full_metrics([rec], [GOLD_CLAIM, NEI_CLAIM], verifier_results=Path("/nonexistent.json"))
    assert m["verifier"]["macro_f1"] is None and m["verifier"]["accuracy"] is None
    assert m["retrieval_cited"]["recall@5"] == 1.0  # claim 8 has no record, so it is not counted as a miss


def test_retrieval_only_metrics_keep_every_key_with_none_where_unmeasured():
    rec: dict[str, Any] = {"id": 7, "seconds": 0.5}
    rec["result"] = {"llm": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}}
    rec["rankings"] = {"fused": ["20", "10"], "bm25": ["10"], "dense": []}
    m = retrieval_only_metrics([rec], [GOLD_CLAIM])
    assert set(m) == METRIC_KEYS and m["calibration"] is None
    assert m["retrieval"]["recall@3"] == 1.0
    assert m["baselines"]["bm25"]["retrieval"]["recall@3"] == 0.5
    assert m["baselines"]["dense"]["retrieval"]["ndcg@10"] == 0.0
    assert m["abstract"]["label_only"] == {"precision": None, "recall": None, "f1": None}
    assert m["faithfulness"] == dict.fromkeys(FAITHFULNESS_KEYS)
    assert m["verifier"] == dict.fromkeys(("macro_f1", "accuracy", "flag_precision", "flag_recall"))
    assert m["cost"]["seconds_per_claim"] == 0.5 and m["cost"]["llm_calls_per_claim"] == 0.0


def test_retrieval_block_is_none_when_no_claim_has_evidence():
    rec: dict[str, Any] = {"id": 8, "seconds": 0.5}
    rec["result"] = {"llm": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}}
    rec["rankings"] = {"fused": ["40"], "bm25": [], "dense": []}
    m = retrieval_only_metrics([rec], [NEI_CLAIM])
    assert m["retrieval"] == {"recall@3": None, "recall@5": None, "map@5": None, "ndcg@10": None}
    assert m["retrieval_cited"]["recall@3"] == 1.0


def test_verifier_dev_metrics_read_the_training_output(tmp_path: Path):
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"dev": {"macro_f1": 0.7, "accuracy": 0.75, "n": 10}}))
    assert verifier_dev_metrics(path) == {"macro_f1": 0.7, "accuracy": 0.75}
    path.write_text("not json")
    assert verifier_dev_metrics(path) == {"macro_f1": None, "accuracy": None}


def test_faithfulness_before_and_after_self_correction():
    def sentence(text: str, status: str, citations: list[int], revision: str | None = None) -> dict[str, Any]:
        return {"text": text, "status": status, "citations": citations, "invalid_citations": [], "revision": revision}

    sources = [
        {"n": 1, "sentence": "Aspirin lowered fever in children within an hour.", "title": "Antipyretic trials"},
        {"n": 2, "sentence": "Fever fell in both arms.", "title": "Paracetamol versus placebo in febrile adults"},
    ]
    corrected = {
        "claim": "Aspirin reduces fever in children.",
        "sources": sources,
        "sentences": [
            sentence("Aspirin lowered fever in children [1].", "supported", [1]),  # its words are in [1]
            sentence("Paracetamol worked better than aspirin [2].", "supported", [2], "replaced"),  # they are not
        ],
        "corrections": [
            {"citations": [2], "invalid_citations": [], "status": "contradicted", "action": "replaced"},
            {"citations": [], "invalid_citations": [9], "status": "uncited", "action": "dropped"},
        ],
    }
    # a record written before self-correction, whose sentence copies the title of what it cites
    untouched = {
        "claim": "Aspirin reduces fever in children.",
        "sources": sources,
        "sentences": [sentence("Paracetamol versus placebo in febrile adults: fever fell [2].", "unsupported", [2])],
    }
    f = answer_faithfulness([corrected, untouched])
    # shown: 2 of 3 supported; draft: the kept sentence, the two corrected ones and the untouched one: 1 of 4
    assert f["attributable_rate"] == pytest.approx(2 / 3) and f["draft_attributable_rate"] == pytest.approx(1 / 4)
    assert f["citation_validity"] == pytest.approx(3 / 4)  # [1], [2], [1] valid; [9] named nothing
    # without the verifier: the first sentence's words are all in [1]; the other two lean on words [2] lacks
    assert f["independent_support_rate"] == pytest.approx(1 / 3)
    assert f["answers_with_copies"] == 0.5  # the untouched answer copies a title
    assert f["answers_corrected"] == 0.5
    assert f["corrections"] == {"recited": 0, "hedged": 0, "rewritten": 0, "replaced": 1, "dropped": 1}

