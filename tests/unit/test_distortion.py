"""Nothing distorted: a shown sentence that copies what it cites but changes its meaning is flagged, whatever the
verifier reads. The sources are real evidence sentences (SciFact abstracts, and the one behind the vitamin D answer
of the issue); the distortions are hand-made, one per kind."""

from __future__ import annotations

from typing import Any

import pytest

from agent.answer.checks import check_sentences
from agent.state import AnswerSentence, Evidence
from tools.models.verifier import VerifierResult
from tools.text.distortion import distortion

COMPLIANCE = "Compliance to vitamin D supplementation is lower in subjects without osteoporosis."
PIOGLITAZONE = ("Ever use of pioglitazone was not associated with bladder cancer risk (adjusted hazard ratio [HR], "
                "1.06; 95% CI, 0.89-1.26).")  # fmt: skip
IL18 = "Central IL-18 administration reduced high-fat diet intake in wildtype mice, but not in mice lacking IL-18R."
SERUM = "Serum 25(OH)D levels on average were 54 nmol/l, were higher in women than men."
ART = ("CONCLUSIONS Antiretroviral therapy is strongly associated with a reduction in the incidence of tuberculosis "
       "across all CD4 count strata.")  # fmt: skip

DISTORTED = [
    pytest.param(COMPLIANCE, "Vitamin D supplementation is lower in subjects without osteoporosis.",
                 "drops “compliance to”", id="dropped_compliance_to"),
    pytest.param(PIOGLITAZONE, "Ever use of pioglitazone was associated with bladder cancer risk (adjusted hazard "
                 "ratio 1.06).", "drops the negation", id="dropped_not"),
    pytest.param(IL18, "Central IL-18 administration reduced high-fat diet intake.", "drops “in wildtype mice”",
                 id="dropped_in_mice"),
    pytest.param(SERUM, "Serum 25(OH)D levels on average were 45 nmol/l, higher in women than men.",
                 "has the number 45", id="changed_number"),
    pytest.param(ART, "Antiretroviral therapy reduces tuberculosis incidence across all CD4 count strata.",
                 "states as an effect what its source reports as an association", id="association_as_effect"),
    pytest.param("Ever use of pioglitazone was associated with bladder cancer risk.",
                 "Ever use of pioglitazone was not associated with bladder cancer risk.", "adds a negation",
                 id="added_not"),
]  # fmt: skip


class TopicVerifier:
    """A verifier that reads topic: every sentence is supported by every source on its subject."""

    def predict(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        return [VerifierResult("supports", 0.9, 0.05, 0.05) for _ in pairs]


@pytest.mark.parametrize(("source", "shown", "why"), DISTORTED)
def test_a_distorted_copy_is_flagged_whatever_the_verifier_reads(source: str, shown: str, why: str, settings: Any):
    evidence = [Evidence(n=1, doc_id="1", title="T", sentence=source, sentence_index=0)]
    (checked,) = check_sentences([AnswerSentence(text=shown, citations=[1])], evidence, TopicVerifier(),
                                 settings.answer.top_attribution)  # fmt: skip
    assert (checked.status, checked.flagged) == ("unsupported", True)
    assert why in checked.reason


@pytest.mark.parametrize("faithful", [
    "Ever use of pioglitazone was not associated with bladder cancer risk (hazard ratio 1.06).",
    "Pioglitazone use showed no association with bladder cancer risk.",
    "Compliance to vitamin D supplementation was lower in subjects without osteoporosis.",
    "Central IL-18 administration reduced high-fat diet intake in wildtype mice.",
    "Serum 25(OH)D levels averaged 54 nmol/l and were higher in women than in men.",
    "Antiretroviral therapy is linked to lower tuberculosis incidence across all CD4 count strata.",
])  # fmt: skip
def test_a_faithful_copy_or_paraphrase_is_left_to_the_verifier(faithful: str):
    sources = [PIOGLITAZONE, COMPLIANCE, IL18, SERUM, ART]
    closest = max(sources, key=lambda s: len(set(s.lower().split()) & set(faithful.lower().split())))
    assert distortion(faithful, closest) is None


def test_a_sentence_on_patients_and_mice_may_report_the_patients_alone():
    source = "Birthweight was higher in patients with HNF4A mutations, and in mice lacking Hnf4a insulin fell."
    assert distortion("Birthweight was higher in patients with HNF4A mutations.", source) is None
    assert distortion("Insulin fell in mice lacking Hnf4a.", source) is None


def test_an_effect_word_inside_the_sources_association_states_no_effect():
    """"associated with reduced mortality" reports no effect: "reduced mortality" as the verb is the distortion, and
    an effect the source itself states beside an association is not one."""
    assert "association" in str(distortion("Statin use reduced mortality in older adults.",
                                           "Statin use was associated with reduced mortality in older adults."))
    assert distortion("Statin use reduced mortality in older adults.",
                      "Statin use reduced mortality in older adults and was associated with fewer strokes.") is None


EXERCISE = ("Because exercise training has been reported to produce an alteration in the function of vascular "
            "endothelial cells in animals, we hypothesized that exercise training influences the production of NO "
            "and ET-1 in humans.")  # fmt: skip
SCRIB = ("These results suggest that Scrib stabilizes the coupling between E-cadherin and the catenins and are "
         "consistent with the idea that mammalian Scrib could behave as a tumor suppressor.")  # fmt: skip


HEADACHE = "Evidence was lacking for cognitive impairment for any headache type with or without brain lesions."
AIDS = ("However, among patients with CD4+ T-cell counts of less than 50 per cubic millimeter, the incidence rates of "
        "AIDS or death were 8.5 and 26.3 cases per 100 person-years, respectively (incidence-rate ratio, 0.32).")
CERVICAL = ("The rate of cervical cancer between arms was 0.75 (0.25 to 2.16) among women invited for screening and "
            "1.98 (0.52 to 9.38) among those who attended.")  # fmt: skip


@pytest.mark.parametrize(("source", "shown", "why"), [
    pytest.param(EXERCISE, "Exercise training increases NO and ET-1 production in humans.",
                 "states as a finding what its source puts as an aim or hypothesis", id="hypothesis_as_finding"),
    pytest.param("To determine whether aging can be delayed, we corrected the CMA defect in aged rodents.",
                 "Correcting the CMA defect delays aging in aged rodents.", "aim or hypothesis", id="aim_as_finding"),
    pytest.param(SCRIB, "Scrib stabilizes the coupling between E-cadherin and the catenins and is a tumor suppressor.",
                 "drops its source's hedge “suggest”", id="dropped_hedge"),
    pytest.param(HEADACHE, "Lack of cognitive impairment in headache without brain lesions.",
                 "states as a finding what its source says lacks evidence", id="no_evidence_as_absence"),
    pytest.param(AIDS, "AIDS incidence rates are 8.5 cases per 100 person-years among patients with CD4+ T-cell counts "
                 "of less than 50 per cubic millimeter.", "without the group it belongs to",
                 id="one_figure_of_several"),
    pytest.param(CERVICAL, "The rate of cervical cancer was higher among women invited for screening compared to those "
                 "who attended.", "draws a comparison (“higher”)", id="comparison_read_off_numbers"),
])  # fmt: skip
def test_a_rewording_that_states_as_certain_what_its_source_does_not_is_flagged(source: str, shown: str, why: str):
    """Real sources (SciFact abstracts) reworded as a short answer sentence would be: the words are mostly the
    source's, too few for a near copy, and the hypothesis, aim or hedge is gone."""
    assert why in str(distortion(shown, source))


@pytest.mark.parametrize("faithful", [
    "Exercise training was hypothesized to influence NO and ET-1 production in humans.",
    "Scrib may stabilize the coupling between E-cadherin and the catenins, the results suggest.",
    "Smokers had more lung cancer.",  # "more likely" is a comparison, not a hedge
    "There was no evidence that headache is associated with cognitive impairment.",
    "Obesity was higher in adults with ADHD than in those without.",  # the source's "increased" is a rise
    "Incidence rates of AIDS or death were 8.5 and 26.3 per 100 person-years, respectively, at CD4 counts under 50.",
])  # fmt: skip
def test_a_rewording_that_keeps_the_hedge_or_the_aim_is_left_to_the_verifier(faithful: str):
    sources = [EXERCISE, SCRIB, "Smokers were more likely to develop lung cancer.", HEADACHE,
               "The prevalence of obesity was increased by about 70% in adults with ADHD (28.2%) compared with those "
               "without ADHD (16.4%).", AIDS]  # fmt: skip
    assert all(distortion(faithful, source) is None for source in sources)


RECOMBINATION = ("Substantial recombination occurs in some DSB-cold regions, suggesting that DSB patterns are not "
                 "normal in rad50S or sae2Δ mutants.")  # fmt: skip


def test_a_hedge_governs_what_follows_it():
    """The finding before "…, suggesting that …" is not hedged: a sentence that reports it alone drops nothing, and
    one that reports what the hedge governs without it is flagged."""
    assert distortion("Substantial recombination occurs in some DSB-cold regions.", RECOMBINATION) is None
    assert "hedge" in str(distortion("Recombination occurs in DSB-cold regions, so DSB patterns are not normal in "
                                     "rad50S mutants.", RECOMBINATION))  # fmt: skip


def test_a_number_grouped_by_a_space_is_the_same_number():
    source = "Conversely, 23 072 nondiabetic patients had no survival benefit (3.0% versus 3.0%)."
    assert distortion("23,072 nondiabetic patients had no survival benefit.", source) is None
    assert "23071" in str(distortion("23,071 nondiabetic patients had no survival benefit.", source))


def test_a_rewording_that_drops_the_animals_is_flagged():
    """Half the source's words, not a near copy: the finding in mice is still stated of everyone."""
    shown = "IL-18 given centrally cuts the intake of high-fat food."
    assert "drops “in wildtype mice”" in str(distortion(shown, IL18))
    assert distortion("IL-18 given centrally cuts the intake of high-fat food in wildtype mice.", IL18) is None


def test_the_population_may_be_named_in_the_singular():
    source = "Metformin reduced proliferation in breast cancer cells and in mice bearing xenografts."
    assert distortion("Metformin reduces breast cancer cell proliferation in a mouse model.", source) is None
    assert "drops “in breast cancer cells”" in str(distortion("Metformin reduces breast cancer proliferation.", source))
