"""evals/studies/missed_claims.py: where a claim's gold papers went, the furthest any of them got."""

from __future__ import annotations

from evals.studies.missed_claims import where_gold_went


def record(assessed: list[str], silent: list[dict[str, object]]) -> dict[str, object]:
    return {"result": {"assessments": [{"doc_id": d} for d in assessed], "silent": silent}}


def test_the_furthest_a_gold_paper_got_is_reported() -> None:
    gated_far = {"doc_id": "1", "bearing": 0.1, "reason": "Not counted: the LLM reads no finding"}
    gated_close = {"doc_id": "2", "bearing": 0.3, "reason": "Not counted, but close: …"}
    by_verifier = {"doc_id": "3", "bearing": 0.02, "reason": "The verifier finds no sentence reporting a finding"}
    unread = {"doc_id": "4", "bearing": 0.5, "reason": "Not read by the LLM: out of time", "unread": True}
    assert where_gold_went(record(["2"], [gated_far]), {"1", "2"}, 0.35) == "counted"
    assert where_gold_went(record([], [gated_far, unread]), {"1", "4"}, 0.35) == "not read for lack of time"
    both = record([], [gated_far, gated_close])
    assert where_gold_went(both, {"1", "2"}, 0.35) == "set aside by the LLM's gate, close"
    assert where_gold_went(record([], [gated_far]), {"1"}, 0.35) == "set aside by the LLM's gate"
    assert where_gold_went(record([], [by_verifier]), {"3"}, 0.35) == "set aside by the verifier"
    assert where_gold_went(record(["9"], [gated_far]), {"5"}, 0.35) == "not among the papers read"
