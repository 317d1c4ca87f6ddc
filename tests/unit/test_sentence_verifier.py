"""The verifier of answer sentences (tools/models/sentence_verifier/): the claim verifier's recipe trained also on
each evidence sentence against itself. Real SciFact dev evidence sentences with a negation, each read against its
own premise as the product reads an answer sentence that repeats it, and each negated by hand; and the wiring: verify
reads answer sentences with it, the verdict's sources with the claim verifier."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.answer.checks import check_sentences
from agent.state import AnswerSentence, Deps, Evidence
from tests.conftest import RuleVerifier
from tools.models.verifier import SENTENCE_ARTIFACT_DIR, Verifier, get_sentence_verifier, get_verifier
from tools.text.premise import premise

APOE = ("Gain of toxic Apolipoprotein E4 effects in Human iPSC-Derived Neurons Is Ameliorated by a Small-Molecule "
        "Structure Corrector")  # fmt: skip
CX3CR1 = ("CX3CR1 is required for airway inflammation by promoting T helper cell survival and maintenance in inflamed "
          "lung")  # fmt: skip
TREG = ("Integrin αvβ8-Mediated TGF-β Activation by Effector Regulatory T Cells Is Essential for Suppression of "
        "T-Cell-Mediated Inflammation")  # fmt: skip
ADHD = "ADHD medications and risk of serious cardiovascular events in young and middle-aged adults."
# (title, place, evidence sentence as the abstract has it, the same sentence negated by hand)
FINDINGS = [
    (APOE, "sentence 3 of 6", "ApoE4 increased Aβ production in human, but not in mouse, neurons.",
     "ApoE4 did not increase Aβ production in human neurons, but did in mouse neurons."),
    (CX3CR1, "sentence 6 of 7", "CX3CR1-induced survival was also observed for T(H)1 cells upon airway inflammation "
     "but not under homeostatic conditions or upon peripheral inflammation.",
     "CX3CR1-induced survival was not observed for T(H)1 cells upon airway inflammation."),
    (TREG, "sentence 4 of 5", "However, Treg cells lacking expression of integrin αvβ8 were unable to suppress "
     "pathogenic T cell responses during active inflammation.",
     "Treg cells lacking expression of integrin αvβ8 were able to suppress pathogenic T cell responses during "
     "active inflammation."),
    (ADHD, "conclusions; sentence 13 of 14", "CONCLUSIONS Among young and middle-aged adults, current or new use of "
     "ADHD medications, compared with nonuse or remote use, was not associated with an increased risk of serious "
     "cardiovascular events.",
     "Among young and middle-aged adults, current or new use of ADHD medications was associated with an increased "
     "risk of serious cardiovascular events."),
]  # fmt: skip


@pytest.fixture(scope="module")
def sentence_verifier() -> Verifier:
    return get_sentence_verifier()


@pytest.mark.parametrize(("title", "place", "sentence", "negated"), FINDINGS, ids=["apoe4", "cx3cr1", "treg", "adhd"])
def test_a_sentence_with_a_negation_supports_itself(
    sentence_verifier: Verifier, title: str, place: str, sentence: str, negated: str
) -> None:
    repeated = sentence.removeprefix("CONCLUSIONS ").removeprefix("However, ")  # as an answer repeats it
    assert sentence_verifier.predict([(repeated, premise(title, sentence, place=place))])[0].label == "supports"


MISSED = "a reversal the sentence verifier reads as support: the word rules and the LLM judge are the checks after it"


@pytest.mark.parametrize(("title", "place", "sentence", "negated"), [
    pytest.param(*FINDINGS[0], id="apoe4", marks=pytest.mark.xfail(strict=True, reason=MISSED)),
    pytest.param(*FINDINGS[1], id="cx3cr1"),
    pytest.param(*FINDINGS[2], id="treg_unable_to_able", marks=pytest.mark.xfail(strict=True, reason=MISSED)),
    pytest.param(*FINDINGS[3], id="adhd"),
])  # fmt: skip
def test_the_sentence_negated_by_hand_is_contradicted(
    sentence_verifier: Verifier, title: str, place: str, sentence: str, negated: str
) -> None:
    assert sentence_verifier.predict([(negated, premise(title, sentence, place=place))])[0].label == "contradicts"


def test_the_claim_verifier_leaves_a_sentence_a_real_chance_of_contradicting_itself(
    sentence_verifier: Verifier,
) -> None:
    """Why answer sentences get their own verifier: the claim verifier, trained on SciFact's negated claims (mostly
    CONTRADICT claims), gives a sentence with a negation that repeats its own source a real chance of contradicting
    it (p 0.28-0.44 on three of these four); the sentence verifier, trained on such self-pairs, does not."""
    pairs = [(s.removeprefix("CONCLUSIONS "), premise(t, s, place=p)) for t, p, s, _ in FINDINGS]
    assert sum(r.p_contradicts > 0.2 for r in get_verifier().predict(pairs)) >= 2
    assert all(r.p_contradicts < 0.1 for r in sentence_verifier.predict(pairs))


def test_the_artifact_is_calibrated_small_and_its_own(sentence_verifier: Verifier) -> None:
    config = json.loads((SENTENCE_ARTIFACT_DIR / "verifier_config.json").read_text())
    assert config["self_pairs"] is True and sentence_verifier.temperature == config["temperature"] != 1.0
    assert sum(p.stat().st_size for p in SENTENCE_ARTIFACT_DIR.iterdir() if p.is_file()) < 25_000_000
    assert get_sentence_verifier() is sentence_verifier is not get_verifier()


def test_answer_sentences_are_read_by_the_sentence_verifier_when_there_is_one(settings: Any) -> None:
    ev = [Evidence(n=1, doc_id="1", title="T", sentence="MMR was not associated with autism.", sentence_index=0)]
    s = [AnswerSentence(text="MMR was not associated with autism.", citations=[1])]
    claim, sentence = RuleVerifier({"": "contradicts"}), RuleVerifier({"": "supports"})  # every premise alike
    both = Deps(settings, None, None, claim, sentence)  # type: ignore[arg-type]
    alone = Deps(settings, None, None, claim)  # type: ignore[arg-type]
    top = settings.answer.top_attribution
    assert check_sentences(s, ev, both.answer_verifier, top)[0].status == "supported"
    assert check_sentences(s, ev, alone.answer_verifier, top)[0].status == "contradicted"
