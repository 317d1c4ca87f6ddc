"""The claim matcher (agent.earlier.relation) with the shipped claim verifier and embedder on the report split of the
labelled pairs (evals/claim_matching/pairs.jsonl: SciFact dev claim texts, never tuned on): no opposite is shown as
the same claim, and of the pairs shown as the same claim at least 0.95 are, as the fitted thresholds promise
(evals/results/claim_matching/README.md)."""

from __future__ import annotations

from collections import Counter

from agent.earlier.relation import load_thresholds
from evals.claim_matching.fit import readings, table
from evals.claim_matching.pairs import load_pairs


def test_on_the_report_split_no_opposite_is_the_same_claim_and_same_matches_are_right():
    pairs = [p for p in load_pairs() if p.split == "report"]
    tab = table(pairs, readings(pairs), load_thresholds())
    assert tab["opposite_shown_as_same"] == 0, tab["confusion"]
    assert tab["same"]["precision"] >= 0.95, tab["same"]
    assert Counter(p.label for p in pairs)["same"] == tab["same"]["gold"] >= 50
