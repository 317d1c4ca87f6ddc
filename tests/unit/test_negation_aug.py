"""Rule-based claim negation used for the verifier's contrastive augmentation (evals/training/augment.py)."""

from __future__ import annotations

import pytest

from evals.training.augment import claim_flip_examples, self_pair_examples
from evals.training.data import Claim, Doc
from tools.text.opposite import flip_claim_direction, flip_direction, negate_claim, rule_opposite
from tools.text.premise import abstract_premise


@pytest.mark.parametrize(
    ("claim", "negated"),
    [
        ("Aspirin reduces fever.", "Aspirin does not reduce fever."),
        ("X is associated with Y.", "X is not associated with Y."),
        ("X is not associated with Y.", "X is associated with Y."),
        ("Vitamin D does not affect bone density.", "Vitamin D affects bone density."),
        ("Drug A cannot cross the blood-brain barrier.", "Drug A can cross the blood-brain barrier."),
        ("Mice have increased susceptibility to obesity.", "Mice have not increased susceptibility to obesity."),
        ("Stem cells have the capacity to differentiate.", "Stem cells do not have the capacity to differentiate."),
        ("Exercise improves quality of life.", "Exercise does not improve quality of life."),
    ],
)
def test_negate(claim: str, negated: str) -> None:
    assert negate_claim(claim) == negated
    back = negate_claim(negated)
    assert back is None or back.replace("can not", "cannot") == claim


@pytest.mark.parametrize(
    "claim",
    [
        "Is aspirin effective?",  # leading auxiliary
        "Spores remain deadly until areas are decontaminated.",  # clause marker before the auxiliary
        "Genes that are expressed in liver regulate lipids.",  # relative clause
        "X did not reduce Y.",  # would need a past tense
        "No drug is effective against it.",  # negation not after an auxiliary
        "Fever ACE2 levels.",  # nothing to negate
    ],
)
def test_skips_unsure_claims(claim: str) -> None:
    assert negate_claim(claim) is None


@pytest.mark.parametrize(
    ("sentence", "flipped"),
    [
        ("Mortality increased in the treated group.", "Mortality decreased in the treated group."),
        ("Higher doses were tolerated.", "Lower doses were tolerated."),
        ("Expression correlated with poor prognosis.", "Expression correlated with good prognosis."),
        ("Smoking was associated with cancer.", "Smoking was not associated with cancer."),
        ("Smoking was not associated with cancer.", "Smoking was associated with cancer."),
        ("The effect was not significant.", "The effect was significant."),
    ],
)
def test_flip_direction(sentence: str, flipped: str) -> None:
    """Premise-side contrast: the one direction word (or association / significance) of a sentence reversed."""
    assert flip_direction(sentence) == flipped


@pytest.mark.parametrize(
    "sentence",
    [
        "Treatment did not increase mortality.",  # a reversed word under a negation would not reverse the finding
        "Treatment didn't increase mortality.",  # the same with a contraction
        "No patient had higher blood pressure.",
        "Higher doses increased toxicity.",  # two direction words: which one carries the finding is unknown
        "Patients were recruited in 2010.",  # no direction
    ],
)
def test_flip_direction_skips(sentence: str) -> None:
    assert flip_direction(sentence) is None


@pytest.mark.parametrize(
    ("claim", "flipped"),
    [
        ("ALDH1 is associated with poorer prognosis.", "ALDH1 is associated with better prognosis."),
        ("A mutation in HNF4A leads to an increased risk.", "A mutation in HNF4A leads to a decreased risk."),
        ("A unit of X leads to a higher risk.", "A unit of X leads to a lower risk."),  # only the article before it
        ("Antidepressants reduce the severity of migraines.", "Antidepressants increase the severity of migraines."),
        ("X is associated with Y.", None),  # no direction word: left to the negation rules
        ("X did not increase Y.", None),
    ],
)
def test_flip_claim_direction(claim: str, flipped: str | None) -> None:
    assert flip_claim_direction(claim) == flipped


def test_claim_flip_examples_pair_the_reversed_claim_with_each_rationale_and_the_flipped_label() -> None:
    doc = Doc("Migraine trial", ["We randomised 300 patients.", "Antidepressants reduced migraine severity."])
    claims = [
        Claim(1, "Antidepressants reduce the severity of migraines.", {7: [([1], 0)]}, [7]),
        Claim(2, "Antidepressants are studied.", {7: [([1], 0)]}, [7]),  # nothing to reverse
        Claim(3, "Antidepressants increase the severity of migraines.", {}, [7]),  # no evidence, no pair
    ]
    ex, n = claim_flip_examples(claims, {7: doc}, placed=True)
    assert n == 1 and len(ex) == 1
    assert ex[0].hyp == "Antidepressants increase the severity of migraines." and ex[0].label == 1
    assert ex[0].variants == [abstract_premise(doc.title, doc.sents, [1])]


def test_self_pairs_read_each_rationale_sentence_against_itself_and_its_negation() -> None:
    """Each rationale sentence once (two claims share sentence 1), without its heading, as supports against its own
    premise; negated by rule, as contradicts; a sentence no rule can negate gives the supports pair alone."""
    doc = Doc("Migraine trial", ["We randomised 300 patients.", "RESULTS Antidepressants were not associated with "
                                 "migraine severity.", "Relapse fell by half."])  # fmt: skip
    claims = [
        Claim(1, "Antidepressants reduce migraine severity.", {7: [([1], 1)]}, [7]),
        Claim(2, "Antidepressants do not affect migraines.", {7: [([1], 0), ([2], 0)]}, [7]),
    ]
    ex, n = self_pair_examples(claims, {7: doc}, placed=True)
    assert n == 2
    assert [(e.hyp, e.label) for e in ex] == [
        ("Antidepressants were not associated with migraine severity.", 0),
        ("Antidepressants were associated with migraine severity.", 1),
        ("Relapse fell by half.", 0),
    ]
    assert ex[0].variants == ex[1].variants == [abstract_premise(doc.title, doc.sents, [1])]


@pytest.mark.parametrize(("claim", "expected"), [
    ("Statins increase the risk of diabetes.", ("Statins decrease the risk of diabetes.", "direction")),
    ("ALDH1 expression is associated with poorer prognosis.", ("ALDH1 expression is associated with better prognosis.",
                                                               "direction")),
    ("The MMR vaccine causes autism.", ("The MMR vaccine does not cause autism.", "negation")),
    ("Macrolides protect against myocardial infarction.", None),  # plural verb: no rule is sure of it
])
def test_rule_opposite_prefers_a_direction_word_then_negation(claim, expected):
    got = rule_opposite(claim)
    assert (tuple(got) if got else None) == expected
