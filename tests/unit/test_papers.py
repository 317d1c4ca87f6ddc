"""One number per paper: the evidence sentences of one abstract share its number [n], a citation of [n] is checked
against all of them, and the chat, the terminal and the Markdown report list each paper once with its sentences."""

from __future__ import annotations

from typing import Any

from agent.answer.checks import check_sentences
from agent.result import CheckResult, Source
from agent.state import AnswerSentence, SourceAssessment, Verdict
from tools.models.verifier import VerifierResult
from ui.chat.render import answer_markdown, paper_detail
from ui.export.formats import export_bib
from ui.export.markdown import report_markdown
from ui.terminal.readable import print_readable

FIRST = "ALDH1 expression was found in 30% of the carcinomas."
SECOND = "In a series of 577 breast carcinomas, ALDH1 expression correlated with poor prognosis."
OTHER = "Stem cells were sorted by flow cytometry."
SOURCES = [
    Source(n=1, doc_id="45", title="ALDH1 and outcome", sentence=FIRST, sentence_index=2, year=2007, stance="nei"),
    Source(n=1, doc_id="45", title="ALDH1 and outcome", sentence=SECOND, sentence_index=4, year=2007,
           stance="contradicts"),
    Source(n=2, doc_id="77", title="Sorting stem cells", sentence=OTHER, sentence_index=0, year=2010),
]  # fmt: skip
ASSESSED = [
    SourceAssessment(doc_id="45", label="Mostly False", score=-0.66, reputation=0.75, explanation=""),
    SourceAssessment(doc_id="77", label="No Evidence", score=0.0, reputation=0.3, explanation=""),
]
VERDICT = Verdict(label="Weakly refuted", score=-0.66, unweighted_score=-0.66, counted_sources=1, confidence=0.7,
                  contradicting=1, irrelevant=1)  # fmt: skip
SENTENCE = AnswerSentence(text="Expression went with a poor prognosis.", citations=[1], status="supported",
                          flagged=False)  # fmt: skip
RESULT = CheckResult(claim="ALDH1 expression is associated with better breast cancer outcomes.", summary="Weakly",
                     answer="Weakly. Expression went with a poor prognosis [1].", sentences=[SENTENCE],
                     sources=SOURCES, assessments=ASSESSED, verdict=VERDICT)  # fmt: skip


class SecondSentenceVerifier:
    """Supports the answer sentence from the second sentence of paper 1 only."""

    def predict(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        return [VerifierResult("supports", 0.9, 0.05, 0.05) if "577" in p else VerifierResult("nei", 0.1, 0.1, 0.8)
                for _, p in pairs]  # fmt: skip


def test_a_citation_of_a_paper_is_checked_against_all_its_sentences(settings: Any) -> None:
    (checked,) = check_sentences([SENTENCE.model_copy(update={"status": "uncited"})], SOURCES, SecondSentenceVerifier(),
                                 settings.answer.top_attribution)  # fmt: skip
    assert checked.status == "supported" and checked.reason == "[1] supports this sentence"
    assert checked.attribution[0].sentence == SECOND  # attribution names the exact sentence
    assert [s.sentence for s in RESULT.cited_sources(SENTENCE)] == [FIRST, SECOND]


def test_every_view_lists_a_paper_once_with_its_sentences(capsys: Any) -> None:
    dump = RESULT.model_dump(mode="json")
    sources = answer_markdown(dump).split("**Sources**")[1]
    assert sources.count("**[1]**") == 1 and sources.count("**[2]**") == 1
    assert "ALDH1 expression was found" in sources and "577 breast carcinomas" in sources
    assert paper_detail(dump["sources"][:2], 2).count("(the sentence read in bold):") == 2  # each sentence's place
    print_readable(dump)
    printed = capsys.readouterr().out.split("Sources:")[1]
    assert printed.count("[1] ") == 1 and printed.count("[2] ") == 1 and FIRST in printed and SECOND in printed
    report = report_markdown(RESULT)
    assert report.count("### Source 1:") == 1 and report.count("| [1] |") == 1 and report.count("| [2] |") == 1
    assert "577 breast carcinomas" in report.split("### Source 1:")[1]
    assert export_bib(RESULT).count("@article") == 2


def test_a_whole_check_numbers_its_sources_by_paper(make_deps: Any) -> None:
    from agent.service import run_claim
    from tests.conftest import decompose_rule, direction_rules

    claim = "The MMR vaccine causes autism."
    deps = make_deps(
        [decompose_rule([], "The MMR vaccine does not cause autism."), *direction_rules(claim, supports=False),
         {"when": "<evidence>", "reply": "No link [1]."}],
        verifier_rules={"not associated": "contradicts", "no relationship": "contradicts"},
    )  # fmt: skip
    result = CheckResult.from_state(run_claim(claim, deps))
    papers = {s.n: s.doc_id for s in result.sources}
    assert all(papers[s.n] == s.doc_id for s in result.sources)  # one number per paper
    assert len(set(papers.values())) == len(papers) and sorted(papers) == list(range(1, len(papers) + 1))
    assert len(result.sources) > len(papers)  # some paper has more than one evidence sentence
