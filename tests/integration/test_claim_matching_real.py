"""The claim matcher (agent.earlier.relation) with the shipped claim verifier, embedder and embedded LLM on the report
split of the labelled pairs (evals/claim_matching/pairs.jsonl: SciFact dev claim texts, never tuned on), read as the
product reads them (the LLM asked only where the verifier is unsure): no opposite is shown as the same claim, of the
pairs shown as the same claim at least 0.95 are, as the fitted thresholds promise
(evals/results/claim_matching/README.md), and the LLM finds same claims that the verifier alone misses."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from agent.earlier.relation import load_thresholds
from evals.claim_matching.fit import readings, table
from evals.claim_matching.pairs import load_pairs


def test_on_the_report_split_no_opposite_is_the_same_claim_and_same_matches_are_right():
    pairs = [p for p in load_pairs() if p.split == "report"]
    t = load_thresholds()
    read = readings(pairs, asked_where=t)
    tab = table(pairs, read, t)
    assert tab["opposite_shown_as_same"] == 0, tab["confusion"]
    assert tab["same"]["precision"] >= 0.95, tab["same"]
    assert Counter(p.label for p in pairs)["same"] == tab["same"]["gold"] >= 50
    alone = table(pairs, [(c, replace(r, llm_same=None)) for c, r in read], t)
    assert sum(r.llm_same is not None for _, r in read) > 0  # the LLM was asked where the verifier was unsure
    assert tab["same"]["right"] > alone["same"]["right"], (tab["same"], alone["same"])
