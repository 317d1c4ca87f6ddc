"""The answer strategies (agent/answer/strategies.py) on the same evidence with the scripted model: what each prompt
shows, and how the reply becomes answer sentences whose citations name existing evidence only."""

from __future__ import annotations

from typing import Any

import prompts
from agent.answer.strategies import write
from agent.answer.text import findings_block, papers_block
from agent.llm.scripted import ScriptedChatModel
from agent.state import Deps, Evidence, Verdict

CLAIM = "The MMR vaccine causes autism."
EVIDENCE = [
    Evidence(n=1, doc_id="101", title="MMR and autism", sentence="MMR was not associated with autism.",
             sentence_index=2, year=2019, section="results; sentence 3 of 4", stance="contradicts"),
    Evidence(n=2, doc_id="102", title="Vaccines", sentence="No link between vaccines and autism was found.",
             sentence_index=4, stance="contradicts"),
]  # fmt: skip
REFUTED = Verdict(label="Generally refuted", score=-1.0, unweighted_score=-1.0)


def deps(settings: Any, reply: str) -> Deps:
    return Deps(settings=settings, llm=ScriptedChatModel(rules=[{"reply": reply}]), index=None, verifier=None)  # type: ignore[arg-type]


def sent(d: Deps) -> str:
    return str(d.llm.calls[-1][-1].content)  # type: ignore[attr-defined]


def test_the_findings_block_has_no_titles_and_no_example_to_copy() -> None:
    block = findings_block(EVIDENCE)
    assert block.splitlines() == [
        '<finding n="1" year="2019" section="results" stance="contradicts the claim">MMR was not associated with '
        "autism.</finding>",
        '<finding n="2" stance="contradicts the claim">No link between vaccines and autism was found.</finding>',
    ]
    headed = EVIDENCE[0].model_copy(update={"sentence": "RESULTS In conclusion, MMR was not associated with autism."})
    assert ">MMR was not associated with autism.</finding>" in findings_block([headed])  # no heading to copy
    for name in ("answer", "answer_per_paper", "answer_hybrid"):
        assert "example" not in prompts.load(name).lower()


def test_per_paper_fixes_each_number_and_ignores_unknown_lines(settings: Any) -> None:
    reply = "1: A 2019 cohort found no association with autism [2].\n7: Invented.\n1: Again.\n[2] No link was seen."
    d = deps(settings, reply)
    sentences, usage = write("per_paper", CLAIM, EVIDENCE, REFUTED, d)
    # the number at the start of a line decides the citation; the model's own [2] inside line 1 is dropped
    assert [(s.text, s.citations) for s in sentences] == [
        ("A 2019 cohort found no association with autism.", [1]),
        ("No link was seen.", [2]),
    ]
    assert sent(d) == prompts.render("answer_per_paper", evidence=papers_block(EVIDENCE))
    assert CLAIM not in sent(d)  # the claim is not shown, so it cannot be restated as a finding
    assert usage.calls == 1


def test_per_paper_reads_sentences_that_cite_one_paper_when_lines_are_not_numbered(settings: Any) -> None:
    reply = "MMR showed no association with autism [1]. Both found nothing [1, 2]. Again [1].\nNo link was seen [2]."
    sentences, _ = write("per_paper", CLAIM, EVIDENCE, REFUTED, deps(settings, reply))
    # a sentence citing two papers belongs to neither; a paper's second sentence is ignored
    assert [(s.text, s.citations) for s in sentences] == [
        ("MMR showed no association with autism.", [1]),
        ("No link was seen.", [2]),
    ]


def test_the_papers_block_holds_each_paper_once_with_its_sentences_in_order() -> None:
    second = EVIDENCE[0].model_copy(update={"sentence": "RESULTS No <b>dose</b> effect was seen.", "sentence_index": 3})
    block = papers_block([EVIDENCE[0], EVIDENCE[1], second])
    assert block.splitlines() == [
        '<paper n="1">MMR was not associated with autism. No dose effect was seen.</paper>',
        '<paper n="2">No link between vaccines and autism was found.</paper>',
    ]


def test_hybrid_sums_up_then_quotes(settings: Any) -> None:
    d = deps(settings, "Both studies found no link between MMR and autism [1].")
    sentences, _ = write("hybrid", CLAIM, EVIDENCE, REFUTED, d)
    assert [s.citations for s in sentences] == [[1, 2], [1], [2]]
    assert sentences[0].text == "Both studies found no link between MMR and autism."
    assert sentences[1].text == 'A 2019 study reports: "MMR was not associated with autism."'
    assert sent(d) == prompts.render("answer_hybrid", claim=CLAIM, evidence=findings_block(EVIDENCE))


def test_abstractive_strips_numbers_that_name_no_evidence_and_extractive_needs_no_llm(settings: Any) -> None:
    d = deps(settings, "No study found a link [1, 9]. It is safe [4].")
    sentences, _ = write("abstractive", CLAIM, EVIDENCE, REFUTED, d)
    assert [(s.citations, s.invalid_citations) for s in sentences] == [([1], [9]), ([], [4])]
    quiet = deps(settings, "unused")
    quoted, usage = write("extractive", CLAIM, EVIDENCE, REFUTED, quiet)
    assert not quiet.llm.calls and usage.calls == 0  # type: ignore[attr-defined]
    assert [s.citations for s in quoted] == [[1], [2]]


def test_per_paper_lines_counted_from_one_name_the_papers_in_order_when_no_number_names_a_paper(settings: Any) -> None:
    """Only the papers that bear on the claim are shown, so they may be [3] and [5]; a model that numbers its lines
    1 and 2 has counted them. Once a line's number names a paper, numbers are read as numbers."""
    shown = [EVIDENCE[0].model_copy(update={"n": 3}), EVIDENCE[1].model_copy(update={"n": 5})]
    reply = "1: MMR showed no association with autism.\n2: Vaccines showed no link with autism."
    sentences, _ = write("per_paper", CLAIM, shown, REFUTED, deps(settings, reply))
    assert [(s.text, s.citations) for s in sentences] == [
        ("MMR showed no association with autism.", [3]),
        ("Vaccines showed no link with autism.", [5]),
    ]
    reply = "1: MMR showed no association with autism.\n5: Vaccines showed no link with autism."
    sentences, _ = write("per_paper", CLAIM, shown, REFUTED, deps(settings, reply))
    assert [(s.text, s.citations) for s in sentences] == [("Vaccines showed no link with autism.", [5])]
