"""The answer replay (evals/answer_replay.py): the answer stage (answer -> verify) run with a scripted model on the
evidence a record's result holds, and the faithfulness figures counted as the eval counts them."""

from __future__ import annotations

from typing import Any

from agent.result import CheckResult, Source
from agent.state import AnswerSentence, Verdict
from evals.answer_replay import faithfulness, pick, replay_answer

CLAIM = "MMR vaccination causes autism."
SENTENCE = "MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93)."
EV = [Source(n=1, doc_id="101", title="Measles-mumps-rubella vaccination and autism", sentence=SENTENCE,
             sentence_index=3, stance="contradicts")]


def record(rid: int, evidence: list[Source], invalid: list[int] | None = None) -> dict[str, Any]:
    sentence = AnswerSentence(text="s", citations=[1], invalid_citations=invalid or [], status="supported",
                              flagged=bool(invalid))
    verdict = Verdict(label="Generally refuted", score=-1.0, unweighted_score=-1.0)
    result = CheckResult(claim=CLAIM, sources=evidence, verdict=verdict, sentences=[sentence])
    return {"id": rid, "result": result.model_dump(mode="json")}


def test_replay_answers_from_the_recorded_evidence_and_verdict(make_deps):
    deps = make_deps([{"when": "<evidence>", "reply": "No link [1]."}], verifier_rules={})
    replay_answer(record(1, EV), deps)
    prompt = "\n".join(str(m.content) for m in deps.llm.calls[-1])
    assert f'<finding n="1" stance="contradicts the claim">{SENTENCE}</finding>' in prompt
    assert "Measles-mumps-rubella" not in prompt and "Generally refuted" in prompt  # no title to copy


def test_replay_runs_answer_and_verify_and_counts_invalid_citations(make_deps):
    deps = make_deps(
        [{"when": "<evidence>", "reply": "MMR was not associated with autism [1]. Others agree [2, 3]."}],
        verifier_rules={"not associated": "contradicts"},
    )
    sentences = replay_answer(record(1, EV), deps)
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
