"""The verdict in one sentence (agent/judge/sentence.py): written from the verdict's own figures, it names the papers
on each side by study design, the verdict's confidence and the papers read that bear on neither, and leaves the
scores and thresholds to "why?"."""

from __future__ import annotations

import itertools
import re

from agent.judge.scoring import GRADES, NOT_ENOUGH, UNDECIDED
from agent.judge.sentence import verdict_sentence
from agent.judge.verdict import decide
from agent.state import SilentSource, SourceAssessment, Verdict

WEAK = ["animal", "in_vitro"]


def paper(k: int, label: str, design: str = "cohort", confidence: float = 0.9, retracted: bool = False):
    inputs: dict[str, object] = {"design": design, **({"retracted": True} if retracted else {})}
    return SourceAssessment(doc_id=str(k), label=label, score=0.0, reputation=0.0 if retracted else 1.0,
                            reputation_inputs=inputs, explanation="", stance_confidence=confidence)  # fmt: skip


def silent(k: int, unread: bool = False) -> SilentSource:
    return SilentSource(doc_id=f"s{k}", title="t", reputation=1.0, unread=unread)


def sentence(
    assessed: list[SourceAssessment], read: list[SilentSource], min_confidence: float = 0.5
) -> tuple[Verdict, str]:
    v = decide(assessed, len(read), no_stance=0.6, min_confidence=min_confidence, weak=WEAK)
    v = v.model_copy(update={"unread": sum(s.unread for s in read)})
    return v, verdict_sentence(v, assessed, read)


def test_the_issue_example_in_the_products_words() -> None:
    _, text = sentence([paper(1, "False", confidence=0.89)], [silent(1), silent(2)])
    assert text == "Refuted by 1 cohort study (confidence 0.89); 2 more papers read bear on neither side."


def test_every_verdict_the_rule_can_give_is_one_sentence_with_its_confidence_and_no_score() -> None:
    labels = [g for g, _ in GRADES]
    seen = set()
    for grades in itertools.product(labels, repeat=3):
        for confidence in (0.3, 0.9):
            assessed = [paper(k, g, ("rct", "cohort", "animal")[k], confidence) for k, g in enumerate(grades)]
            v, text = sentence(assessed, [silent(0)])
            seen.add(v.label)
            assert text.endswith(".") and text.count(". ") == 0, text  # one sentence
            assert "score" not in text and "weight" not in text and "threshold" not in text, text
            if v.label == NOT_ENOUGH:
                assert text.startswith("Not enough evidence: none of the "), text
                continue
            assert f"{v.confidence:.2f}" in text, text
            nouns = len(re.findall(r"\b1 (?:randomised trial|cohort study|animal study)\b", text))
            assert nouns == v.supporting + v.contradicting, text  # every counted paper, named by its design
            neither = v.irrelevant
            assert (f"; {neither} more paper" in text) == bool(neither), text
    assert len(seen) >= 8  # all seven verdict labels and "Cannot decide" were reached


def test_each_label_in_words() -> None:
    cases = {
        ("True", "True"): "Supported by 2 cohort studies (confidence 0.90).",
        ("Somewhat False",): "Weakly refuted by 1 cohort study (confidence 0.90).",
        ("True", "Somewhat False"): "Disputed, leaning towards supported: 1 cohort study supports the claim and 1 "
        "cohort study contradicts it (confidence 0.45).",
        ("True", "False"): "Controversial: 1 cohort study supports the claim and 1 cohort study contradicts it "
        "(confidence 0.90).",
        ("True", "True", "True", "Somewhat False"): "Supported by 3 cohort studies, though 1 cohort study "
        "contradicts it (confidence 0.68).",
    }
    for grades, expected in cases.items():
        assert sentence([paper(k, g) for k, g in enumerate(grades)], [], min_confidence=0.0)[1] == expected


def test_designs_strongest_first_and_indirect_evidence_said() -> None:
    mixed = [paper(1, "True", "cohort"), paper(2, "True", "rct"), paper(3, "Mostly True", "rct")]
    assert sentence(mixed, [])[1].startswith("Supported by 2 randomised trials and 1 cohort study (")
    _, weak = sentence([paper(1, "Somewhat True", "animal"), paper(2, "Somewhat True", "in_vitro")], [])
    assert weak == "Weakly supported by 1 animal study and 1 in vitro study (confidence 0.90; indirect evidence only)."
    unknown = [paper(1, "True", "unclassified")]
    assert sentence(unknown, [])[1].startswith("Supported by 1 study with no stated design (")


def test_cannot_decide_says_which_way_it_leans_without_the_threshold() -> None:
    v = Verdict(label=UNDECIDED, leaning="Weakly refuted", score=-0.4, unweighted_score=-0.4, confidence=0.42,
                contradicting=1, counted_sources=1, irrelevant=3)  # fmt: skip
    assert verdict_sentence(v) == (
        "Cannot decide: 1 paper contradicts the claim, but with too little confidence (0.42) to call it weakly "
        "refuted; 3 more papers read bear on neither side."
    )


def test_not_enough_evidence_says_what_was_read_and_why_none_counts() -> None:
    assert sentence([], [])[1] == "Not enough evidence: the search found no paper that addresses the claim."
    assert sentence([], [silent(1)])[1] == (
        "Not enough evidence: the one paper read states no finding for or against the claim."
    )
    assert sentence([paper(1, "No Evidence")], [silent(1), silent(2)])[1] == (
        "Not enough evidence: none of the 3 papers read states a finding for or against the claim."
    )
    assert sentence([paper(1, "True", retracted=True)], [silent(1)])[1] == (
        "Not enough evidence: 1 of the 2 papers read is retracted, and the one other states no finding for or "
        "against the claim."
    )


def test_provisional_when_the_llm_did_not_read_some_papers() -> None:
    assert sentence([], [silent(1, unread=True), silent(2)])[1] == (
        "Not enough evidence so far (provisional): the LLM did not read 1 of the 2 papers found, and the other one "
        "states no finding for or against the claim."
    )
    assert sentence([], [silent(1, unread=True)])[1] == (
        "Not enough evidence so far (provisional): the LLM did not read the one paper found."
    )
    v = Verdict(label="Generally refuted", score=-1, unweighted_score=-1, confidence=0.8, contradicting=1,
                counted_sources=1, irrelevant=2, unread=2)  # fmt: skip
    listed = [silent(1, unread=True), silent(2)]
    assert verdict_sentence(v, [paper(1, "False")], listed) == (
        "Refuted by 1 cohort study (confidence 0.80); 1 more paper read bears on neither side; provisional: the LLM "
        "did not read 1 paper it counts and 1 paper more, listed, not counted."
    )


def test_a_retracted_paper_with_a_finding_is_said_not_to_count() -> None:
    _, text = sentence([paper(1, "False"), paper(2, "True", retracted=True)], [])
    assert text == (
        "Refuted by 1 cohort study (confidence 0.90); 1 paper with a finding is retracted and does not count."
    )
