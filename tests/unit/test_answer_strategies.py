"""The answer-strategy comparison (evals/studies/answer_strategies.py, evals/scifact/answer_checks.py): the checks that
do not use the verifier, and one strategy replayed on a recorded claim with the scripted model, counted as the report
counts."""

from __future__ import annotations

from typing import Any

from agent.result import CheckResult, Source
from agent.state import Deps, Verdict
from evals.scifact.answer_checks import copies_prompt, prompt_runs, support_share
from evals.scifact.metrics import answer_faithfulness
from evals.studies.answer_strategies import measure, replay
from tests.unit.test_nodes import counted_as
from tools.text.overlap import copies

CLAIM = "MMR vaccination causes autism in young children."
TITLE = "Measles-mumps-rubella vaccination and autism: a nationwide cohort study"
SENTENCE = "MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93)."
EV = [Source(n=1, doc_id="101", title=TITLE, sentence=SENTENCE, sentence_index=3, stance="contradicts", year=2019)]


def test_content_word_support_reads_words_not_stance() -> None:
    assert support_share("The cohort found MMR vaccination was not associated with autism risk.", [SENTENCE]) == 5 / 6
    assert support_share("Statins cure cancer.", [SENTENCE]) == 0.0
    assert support_share("Vaccines cure cancer.", [SENTENCE]) == 1 / 3  # "vaccin" is the stem of both
    assert support_share("It was not so.", [SENTENCE]) is None  # nothing but stop words
    assert support_share(f'A 2019 study reports: "{SENTENCE}"', [SENTENCE]) == 1.0


def test_a_copied_title_or_restated_claim_is_a_run_the_evidence_does_not_hold() -> None:
    assert copies("Measles-mumps-rubella vaccination and autism: a nationwide cohort study [1].", TITLE, [SENTENCE])
    assert not copies(f'A study reports: "{SENTENCE}"', TITLE, [SENTENCE])  # a quote shares words, not the run
    assert copies("MMR vaccination causes autism in young children, a study found.", CLAIM, [SENTENCE])
    assert not copies("MMR vaccination was not associated with autism.", CLAIM, [SENTENCE])
    runs = prompt_runs()
    assert copies_prompt('<finding n="1">MMR</finding>', runs) and copies_prompt("It contradicts the claim.", runs)
    assert copies_prompt("Keep each finding's direction exactly more or less.", runs)
    assert not copies_prompt(SENTENCE, runs)


def test_one_strategy_replayed_and_measured(settings: Any, make_deps: Any) -> None:
    verdict = Verdict(label="Generally refuted", score=-1.0, unweighted_score=-1.0)
    result = CheckResult(claim=CLAIM, sources=EV, verdict=verdict, assessments=counted_as("False", *EV))
    rec = {"id": 7, "result": result.model_dump(mode="json")}
    deps: Deps = make_deps(
        [{"when": "<draft>", "reply": "MMR vaccination causes autism in young children [1]."},
         {"when": "<evidence>", "reply": "MMR vaccination causes autism in young children [1]. It is safe [3]."}],
        verifier_rules={"not associated": "contradicts"},
        answer_strategy="abstractive",
    )  # fmt: skip
    row = replay(rec, deps)
    # the draft restates the claim; [1] contradicts it, the rewrite restates it again, so the quote replaces it,
    # and the sentence citing [3] (no such source) is dropped
    assert [s["status"] for s in row["draft"]] == ["contradicted", "uncited"]
    assert row["corrections"] == ["replaced", "dropped"] and row["calls"] == 2
    assert [s["text"] for s in row["shown"]] == [f'A 2019 study reports: "{SENTENCE}"']
    m = measure([row], {7: CheckResult.model_validate(rec["result"])}, deps.verifier)
    assert (m["draft_supported"], m["citation_validity"]) == (0.0, 0.5)
    assert m["shown_supported"] == 1.0 and m["shown_supported_independent"] == 1.0
    assert m["shown_supported_by_verifier_alone"] == 0.0  # the rule verifier reads "not associated" as contradicting
    assert m["answers_restating_the_claim"] == 0.0 and m["answers_with_any_copy"] == 0.0
    assert m["corrections"] == {"replaced": 1, "dropped": 1} and m["llm_calls_per_claim"] == 2.0
    assert m["only_copied_passages"] == 1.0 and m["only_quotes"] == 1.0  # the quote alone is shown


def test_a_copied_passage_is_a_quote_or_an_evidence_sentence_nearly_word_for_word() -> None:
    from evals.scifact.answer_checks import copied_passage, only_copied

    assert copied_passage(f'A 2019 study reports: "{SENTENCE}"', [])
    assert copied_passage(SENTENCE.replace(" (hazard ratio 0.93)", ""), [SENTENCE])
    assert not copied_passage("MMR vaccination showed no link with autism in a national cohort.", [SENTENCE])
    assert not copied_passage("MMR vaccination was not associated with autism.", [SENTENCE])  # a short report
    assert only_copied([SENTENCE], [SENTENCE]) and not only_copied([], [SENTENCE])


def test_verdict_first_and_answers_that_are_only_copied_passages():
    verdict = {"label": "Generally refuted"}
    quote = {"text": 'A 2019 study reports: "No link was found."', "citations": [1], "invalid_citations": [],
             "status": "supported"}  # fmt: skip
    written = {**quote, "text": "A cohort found no link."}
    source = {"n": 1, "sentence": "No link was found.", "title": "T"}
    results = [
        {"claim": "c", "verdict": verdict, "answer": "Generally refuted (confidence 0.8): ...", "sentences": [quote],
         "sources": [source]},
        {"claim": "c", "verdict": verdict, "answer": "A cohort found no link [1].", "sentences": [written, quote],
         "sources": [source]},
        {"claim": "c", "verdict": {"label": "Not enough evidence"}, "answer": "Not enough evidence: ...",
         "sentences": [], "sources": []},
    ]  # fmt: skip
    m = answer_faithfulness(results)
    assert abs(m["verdict_first"] - 2 / 3) < 1e-3  # the second opens with a finding, not the verdict
    assert abs(m["only_copied_passages"] - 1 / 3) < 1e-3
