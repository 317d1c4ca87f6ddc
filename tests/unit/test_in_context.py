"""The abstract around the evidence sentences, as the judge's gate may read it (agent.judge.direction.in_context)."""

from __future__ import annotations

from agent.judge.calibration import JudgeCalibration
from agent.judge.direction import in_context
from agent.nodes.judge_sources import gate_reading
from agent.state import Evidence

SENTENCES = ["BACKGROUND We asked whether statins protect.", "METHODS A cohort of 4,000 adults.",
             "RESULTS Statin use was not associated with fewer infarctions.", "CONCLUSIONS No protective effect.",
             "A long closing remark about further work that the study suggests in great detail and at length."]


def test_a_short_abstract_is_read_whole() -> None:
    text = in_context("Statins and MI", SENTENCES, [2], max_chars=2000)
    assert text.startswith("Statins and MI [the whole abstract]: BACKGROUND")
    assert all(s in text for s in SENTENCES)


def test_a_long_abstract_keeps_the_evidence_and_its_nearest_neighbours_in_order() -> None:
    text = in_context("Statins and MI", SENTENCES, [2], max_chars=150)
    body = text.split(": ", 1)[1]
    assert body == " ".join(SENTENCES[1:4])
    assert "[part of the abstract, sentences 2 to 4 of 5]" in text


def test_the_evidence_is_kept_even_when_it_alone_is_longer_than_the_limit() -> None:
    text = in_context("T", SENTENCES, [4], max_chars=10)
    assert text.endswith(SENTENCES[4]) and SENTENCES[3] not in text


def test_the_gate_reads_what_its_calibration_was_fitted_on(make_deps) -> None:
    """A calibration fitted on the abstract around the evidence, asked of the claim and its opposite, has the LLM
    read the neighbouring sentences and both statements, and the gate gets the mean P(Yes); one fitted on the shown
    sentences and the claim alone (the class's defaults) reads them once."""
    claim, opposite = "The MMR vaccine causes autism.", "The MMR vaccine does not cause autism."
    deps = make_deps([
        {"when": f"Claim: {claim}\n", "reply": "Yes", "top_logprobs": {"Yes": 0.8, "No": 0.2}},
        {"when": f"Claim: {opposite}\n", "reply": "Yes", "top_logprobs": {"Yes": 0.4, "No": 0.6}},
    ])
    finding = "MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93)."
    shown = [Evidence(n=1, doc_id="101", title="MMR and autism", sentence_index=3, sentence=finding)]
    neighbour = "During follow-up, 6,517 children were diagnosed with autism."
    p, usage = gate_reading(JudgeCalibration(gate_reads="context", gate_asks_opposite=True), deps, "101", shown,
                            "the shown sentence", claim, opposite)
    assert p == 0.6 and usage.calls == 2
    asked = [str(c[-1].content) for c in deps.llm.calls]
    assert all(neighbour in q for q in asked) and opposite in asked[1]
    p, usage = gate_reading(JudgeCalibration(), deps, "101", shown, "the shown sentence", claim, opposite)
    assert p == 0.8 and usage.calls == 1 and neighbour not in str(deps.llm.calls[-1][-1].content)


def test_a_gate_fitted_on_the_higher_reading_takes_the_opposites_null_finding(make_deps) -> None:
    """Fitted with gate_combines "max", the gate gets the higher P(Yes) of the claim's and its opposite's questions
    on the shown sentences: a null finding the LLM reads as a finding on "does not cause" counts in full."""
    claim, opposite = "Macrolides protect against myocardial infarction.", "Macrolides do not protect against it."
    deps = make_deps([
        {"when": f"Claim: {claim}\n", "reply": "No", "top_logprobs": {"Yes": 0.3, "No": 0.7}},
        {"when": f"Claim: {opposite}\n", "reply": "Yes", "top_logprobs": {"Yes": 0.9, "No": 0.1}},
    ])
    finding = "No effect was found for previous use of macrolides."
    shown = [Evidence(n=1, doc_id="101", title="Macrolides and MI", sentence_index=3, sentence=finding)]
    cal = JudgeCalibration(gate_asks_opposite=True, gate_combines="max")
    p, usage = gate_reading(cal, deps, "101", shown, finding, claim, opposite)
    assert p == 0.9 and usage.calls == 2
    assert all(finding in str(c[-1].content) for c in deps.llm.calls)
    p, _ = gate_reading(JudgeCalibration(gate_asks_opposite=True), deps, "101", shown, finding, claim, opposite)
    assert p == 0.6  # the mean, for a calibration fitted on it
