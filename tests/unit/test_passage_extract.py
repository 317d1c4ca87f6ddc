"""A passage split into claims: sentences with spans and citations, the checkability rules, abbreviations written
out, references resolved by the LLM only when its rewrite passes the checks, near-duplicates sharing one check."""

from __future__ import annotations

import json

import prompts
from agent.llm.scripted import ScriptedChatModel
from agent.passage.extract import acceptable, extract
from tools.text.claim_rules import abbreviations, checkable, expanded, frame_removed, unresolved
from tools.text.passage import Citation, read_passage, strip_citations

PASSAGE = (
    "Breast cancer is a major public health problem. Aldehyde dehydrogenase 1 (ALDH1) marks mammary stem cells [1]. "
    "We aimed to determine whether ALDH1 predicts outcome. In 577 breast carcinomas, ALDH1 expression was associated "
    "with poor prognosis (Ginestier et al., 2007). These results suggest that ALDH1 predicts a poor outcome. It was "
    "not associated with tumour size [@smith2019]. ALDH1 may also be a target for therapy.\n\n"
    "References:\n[1] ALDH1 is a marker of normal and malignant human mammary stem cells. Cell Stem Cell. "
    "doi:10.1016/j.stem.2007.08.014\n"
)


def test_sentences_keep_their_spans_citations_and_the_reference_list() -> None:
    passage = read_passage(PASSAGE)
    assert all(PASSAGE[s.start : s.end] == s.text for s in passage.sentences)
    assert not any("References" in s.text for s in passage.sentences)
    assert passage.references["1"].startswith("ALDH1 is a marker")
    cites = {c for s in passage.sentences for c in s.citations}
    assert cites == {Citation("number", "1"), Citation("author_year", "Ginestier 2007"), Citation("key", "smith2019")}
    assert strip_citations("Safe [1, 3-4] (Lee and Park, 2020).") == "Safe."


def test_a_citation_after_the_full_stop_stays_with_its_sentence() -> None:
    passage = read_passage("Coffee lowers the risk of gout. [2] Tea does not.")
    assert [s.citations for s in passage.sentences][0] == [Citation("number", "2")]
    assert len(passage.sentences) == 2


def test_a_capital_letter_after_a_lower_case_word_ends_the_sentence_but_an_initial_does_not() -> None:
    text = "Coffee was linked to less fibrosis in hepatitis C. Sleep loss raised dementia risk. Smith J. Reported it."
    passage = read_passage(text)
    assert [s.text for s in passage.sentences] == [
        "Coffee was linked to less fibrosis in hepatitis C.",
        "Sleep loss raised dementia risk.",
        "Smith J. Reported it.",
    ]
    assert all(text[s.start : s.end] == s.text for s in passage.sentences)


def test_checkability_rules_give_their_reason() -> None:
    assert checkable("In 577 breast carcinomas, ALDH1 expression was associated with poor prognosis.")[0]
    assert checkable("Obesity increases the risk of type 2 diabetes.")[0]
    assert checkable("MMR vaccination was not associated with autism.")[0]
    assert checkable("We aimed to determine whether ALDH1 predicts outcome.") == (False, "states an aim")
    assert checkable("Patients were randomized to vitamin D or placebo.") == (
        False, "describes methods or participants")  # fmt: skip
    assert checkable("ALDH1 may contribute to chemoresistance.") == (False, "a possibility, not a finding")
    assert checkable("Breast cancer is a major public health problem.") == (False, "states no relation")
    assert checkable("Does coffee cause gout?") == (False, "a question")
    # a conclusion reported with "suggest that" is a finding; the frame is not part of the claim
    assert checkable("These results suggest that ALDH1 predicts a poor outcome.")[0]
    assert (
        frame_removed("These results suggest that ALDH1 predicts a poor outcome.") == "ALDH1 predicts a poor outcome."
    )


def test_abbreviations_are_written_out_and_references_back_named() -> None:
    defined = abbreviations("Aldehyde dehydrogenase 1 (ALDH1) and cancer stem cells (CSCs) and body mass index (BMI).")
    assert defined == {"ALDH1": "Aldehyde dehydrogenase 1", "CSCs": "cancer stem cells", "BMI": "body mass index"}
    assert expanded("In tumours, ALDH1 marks CSCs.", defined) == (
        "In tumours, aldehyde dehydrogenase 1 (ALDH1) marks cancer stem cells (CSCs).")  # fmt: skip
    assert unresolved("It was not associated with tumour size.") == "It"
    assert unresolved("Vitamin D lowers the risk in these patients.") == "these patients"
    assert unresolved("ALDH1 predicts a poor outcome.") is None


def test_an_llm_rewrite_is_kept_only_when_it_changes_nothing_but_the_reference() -> None:
    sentence, context = "It was not associated with tumour size.", "ALDH1 expression predicts a poor outcome."
    assert acceptable("ALDH1 expression was not associated with tumour size.", sentence, context)
    assert not acceptable("ALDH1 expression was associated with tumour size.", sentence, context)  # negation lost
    assert not acceptable("ALDH1 expression was not associated with tumour size in 40 women.", sentence, context)
    assert not acceptable("Smoking was not associated with tumour size.", sentence, context)  # not from the text
    assert not acceptable("It was not associated with tumour size.", sentence, context)  # still refers back


def _llm(rewrite: str) -> ScriptedChatModel:
    return ScriptedChatModel(rules=[{"when": "stand alone", "reply": json.dumps({"claim": rewrite})}])


def test_extraction_picks_findings_and_resolves_references() -> None:
    llm = _llm("ALDH1 expression was not associated with tumour size.")
    claims, skipped, usage, notes = extract(read_passage(PASSAGE), llm)
    assert [c.claim for c in claims] == [
        "Aldehyde dehydrogenase 1 (ALDH1) marks mammary stem cells.",
        "In 577 breast carcinomas, aldehyde dehydrogenase 1 (ALDH1) expression was associated with poor prognosis.",
        "Aldehyde dehydrogenase 1 (ALDH1) predicts a poor outcome.",
        "ALDH1 expression was not associated with tumour size.",
    ]
    assert [c.rewritten_by for c in claims] == ["rules", "rules", "rules", "llm"] and usage.calls == 1
    system, user = (str(m.content) for m in llm.calls[0])
    assert system == prompts.load("standalone_system")
    assert '"It" refers to something named earlier' in user and "ALDH1 predicts a poor outcome.\n</passage>" in user
    assert claims[0].citations == ["[1]"] and claims[3].citations == ["[@smith2019]"]
    assert all(PASSAGE[c.start : c.end] == c.sentence for c in claims)
    assert {s.reason for s in skipped} == {"states no relation", "states an aim", "a possibility, not a finding"}
    assert notes == []


def test_a_rewrite_that_changes_the_finding_is_refused_and_the_claim_marked() -> None:
    claims, _, _, _ = extract(read_passage(PASSAGE), _llm("ALDH1 expression was associated with tumour size."))
    last = claims[-1]
    assert last.rewritten_by == "rules" and not last.standalone and last.unresolved == "It"
    assert last.claim == "It was not associated with tumour size."


def test_without_an_llm_the_rules_stand_and_near_duplicates_share_a_check() -> None:
    text = ("Coffee lowers the risk of gout in men. Tea has no effect on gout. "
            "Coffee lowers the risk of gout in men [3].")  # fmt: skip
    claims, _, usage, _ = extract(read_passage(text), None)
    assert [c.same_as for c in claims] == [None, None, 1] and usage.calls == 0
    # a near copy that changes one meaningful word, a negation or a number is a claim of its own
    text = ("APOE4 increases tau phosphorylation, causing neuron degeneration. APOE4 increases tau phosphorylation, "
            "delaying neuron degeneration. APOE4 does not increase tau phosphorylation, causing neuron degeneration. "
            "Tau phosphorylation is increased by APOE4, causing the degeneration of neurons.")  # fmt: skip
    claims, _, _, _ = extract(read_passage(text), None)
    assert [c.same_as for c in claims] == [None, None, None, 1]
