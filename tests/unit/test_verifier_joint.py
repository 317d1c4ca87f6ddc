"""Joint abstract-level reading (evals/training/joint.py) on a tiny corpus written here: the whole-abstract premise
keeps the findings when it must shorten, the examples and evaluation pairs carry the right abstract labels, and the
sentence-by-sentence baseline labels an abstract by its most decided sentence."""

from __future__ import annotations

import random

from evals.training.data import NEI, Claim, Doc
from evals.training.joint import (
    abstract_text,
    joint_augmentation,
    joint_epoch_examples,
    joint_eval_pairs,
    joint_pairs,
    sentence_rule,
)

CORPUS = {
    1: Doc("Aspirin and fever", ["We randomised 420 adults.", "Aspirin reduced fever compared with placebo."]),
    2: Doc("Aspirin and headache", ["We studied headache.", "Aspirin shortened headaches."]),
    3: Doc("Soil bacteria", ["Nitrogen-fixing bacteria were sampled from wheat fields."]),
    4: Doc("Statins and stroke", ["Patients were followed.", "Statins increased the incidence of stroke."]),
}
SUPPORTED = Claim(1, "Aspirin reduces fever.", {1: [([1], 0)]}, [1, 2])
REFUTED = Claim(2, "Statins reduce the risk of stroke.", {4: [([1], 1)]}, [4])
NO_EVIDENCE = Claim(3, "Zinc shortens colds.", {}, [3])
CLAIMS = [SUPPORTED, REFUTED, NO_EVIDENCE]
BM25 = {1: [1, 3, 4], 2: [4, 1], 3: [3, 2]}


def test_a_long_abstract_loses_its_middle_not_its_first_sentence_or_its_findings() -> None:
    doc = Doc("T", ["Background sentence.", *[f"Method detail number {i} of the study." for i in range(60)],
                    "CONCLUSIONS Aspirin reduced fever."])  # fmt: skip
    text = abstract_text(doc, max_chars=400)
    assert len(text) <= 400 + len("T: ")
    assert text.startswith("T: Background sentence. ...")
    assert text.endswith("CONCLUSIONS Aspirin reduced fever.")
    assert "number 0 " not in text and "number 59 " in text
    short = abstract_text(CORPUS[1])
    assert short == "Aspirin and fever: We randomised 420 adults. Aspirin reduced fever compared with placebo."


def test_evaluation_pairs_label_whole_abstracts() -> None:
    keys, labels = joint_eval_pairs(CLAIMS, CORPUS, BM25)
    got = dict(zip(keys, labels, strict=True))
    # evidence abstracts keep their label, cited ones without evidence and the first uncited BM25 hit are nei
    assert got == {(1, 1): 0, (1, 2): NEI, (1, 3): NEI, (2, 4): 1, (2, 1): NEI, (3, 3): NEI, (3, 2): NEI}
    pairs = joint_pairs(keys, CLAIMS, CORPUS)
    assert pairs[0] == ("Aspirin reduces fever.", abstract_text(CORPUS[1]))


def test_training_examples_and_contrast_pairs() -> None:
    ex = joint_epoch_examples(CLAIMS, CORPUS, BM25, random.Random(0))
    labelled = {(e.hyp, e.variants[0]): e.label for e in ex}
    assert labelled[("Aspirin reduces fever.", abstract_text(CORPUS[1]))] == 0
    assert labelled[("Statins reduce the risk of stroke.", abstract_text(CORPUS[4]))] == 1
    assert labelled[("Aspirin reduces fever.", abstract_text(CORPUS[2]))] == NEI
    aug = {(e.hyp, e.variants[0]): e.label for e in joint_augmentation(CLAIMS, CORPUS)}
    # the negated claim flips the label; so does the evidence with its one direction word reversed
    assert aug[("Aspirin does not reduce fever.", abstract_text(CORPUS[1]))] == 1
    flipped = Doc("Statins and stroke", ["Patients were followed.", "Statins decreased the incidence of stroke."])
    assert aug[("Statins reduce the risk of stroke.", abstract_text(flipped))] == 0
    assert ("Statins increase the risk of stroke.", abstract_text(CORPUS[4])) not in aug
    turned = {(e.hyp, e.variants[0]): e.label for e in joint_augmentation(CLAIMS, CORPUS, claim_flips=True)}
    # the claim with its direction word reversed, against the same whole abstract, takes the other side
    assert turned[("Statins increase the risk of stroke.", abstract_text(CORPUS[4]))] == 0
    assert turned[("Aspirin increases fever.", abstract_text(CORPUS[1]))] == 1


class KeywordVerifier:
    """Sentence-level stand-in: supports on "reduced", contradicts on "increased", else nei."""

    def predict_proba(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
        out = []
        for _, prem in pairs:
            text = prem.split("]: ", 1)[-1]
            out.append([0.8, 0.1, 0.1] if "reduced" in text else [0.1, 0.8, 0.1] if "increased" in text else
                       [0.1, 0.1, 0.8])  # fmt: skip
        return out


def test_the_sentence_baseline_labels_an_abstract_by_its_most_decided_sentence() -> None:
    keys = [(1, 1), (2, 4), (3, 3)]
    assert sentence_rule(KeywordVerifier(), keys, CLAIMS, CORPUS) == [0, 1, NEI]


def test_every_scifact_example_marks_its_rationale_sentences_and_a_nei_abstract_marks_none() -> None:
    ex = joint_epoch_examples(CLAIMS, CORPUS, BM25, random.Random(0)) + joint_augmentation(CLAIMS, CORPUS)
    for e in ex:
        assert e.sentences is not None
        text = e.variants[0]
        marked = [text[a:b] for a, b, is_rationale in e.sentences if is_rationale]
        if e.label == NEI and e.hyp in {c.text for c in CLAIMS}:
            assert marked == []
        if e.variants[0] == abstract_text(CORPUS[1]) and e.label == 0:
            assert marked == ["Aspirin reduced fever compared with placebo."]
    flipped = [e for e in joint_augmentation(CLAIMS, CORPUS) if e.hyp == "Aspirin reduces fever." and e.label == 1]
    assert flipped and all(any(m[2] for m in e.sentences or ()) for e in flipped)  # the reversed sentence is marked
