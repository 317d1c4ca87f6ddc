"""The answer replay (evals/answer_replay.py): recorded evidence rebuilt from the index, the answer and verify nodes
run on it with a scripted model, and the faithfulness figures counted as the eval counts them."""

from __future__ import annotations

from evals.answer_replay import faithfulness, pick, rebuild_state, replay_answer

CLAIM = "MMR vaccination causes autism."


def record(rid: int, evidence: list[dict[str, object]], invalid: list[int] | None = None) -> dict[str, object]:
    sentence: dict[str, object] = {"text": "s", "citations": [1], "invalid_citations": invalid or []}
    sentence.update(status="supported", flagged=bool(invalid))
    return {"id": rid, "claim": CLAIM, "evidence": evidence, "verdict": "Generally refuted", "sentences": [sentence]}


EV = [{"n": 1, "doc_id": "101", "sentence_index": 3, "stance": "contradicts"}]


def test_rebuild_state_takes_title_and_sentence_from_the_index(make_deps):
    deps = make_deps([])
    state = rebuild_state(record(1, EV), deps.index.docs)
    (e,) = state["evidence"]
    assert e.sentence == "MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93)."
    assert e.title.startswith("Measles-mumps-rubella vaccination and autism")
    assert (e.n, e.stance, state["verdict"].label) == (1, "contradicts", "Generally refuted")


def test_replay_runs_answer_and_verify_and_counts_invalid_citations(make_deps):
    deps = make_deps(
        [{"when": "<evidence>", "reply": "MMR was not associated with autism [1]. Others agree [2, 3]."}],
        verifier_rules={"not associated": "contradicts"},
    )
    sentences = replay_answer(rebuild_state(record(1, EV), deps.index.docs), deps)
    assert [(s["citations"], s["invalid_citations"]) for s in sentences] == [([1], []), ([], [2, 3])]
    # the rule verifier reads [1] as contradicting the sentence; the other sentence lost its citations
    assert all(s["flagged"] for s in sentences)
    f = faithfulness(sentences, 1)
    assert (f["sentences"], f["invalid_citations"], f["citation_validity"]) == (2, 2, round(1 / 3, 4))
    assert f["flagged"] == 2


def test_pick_takes_every_nth_answered_claim_plus_those_with_invalid_citations():
    recs = [record(i, EV if i != 2 else [], [2] if i == 4 else None) for i in range(1, 9)]
    # claim 2 has no evidence, so the answered ones are 1, 3, 4, 5, 6, 7, 8; every third: 1, 5, 8
    assert [r["id"] for r in pick(recs, 3, with_invalid=False)] == [1, 5, 8]
    assert [r["id"] for r in pick(recs, 3, with_invalid=True)] == [1, 4, 5, 8]
