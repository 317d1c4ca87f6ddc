"""A passage checked together on the tiny corpus with a library: every provisional verdict before any full check,
near-duplicates sharing a check, each citation audited against the library paper it names, and the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.llm.scripted import ScriptedChatModel
from agent.passage.check import check_passage, validate_passage
from agent.passage.model import PassageCheck
from agent.service import InputError
from agent.settings.app import Settings
from agent.state import Deps
from tests.conftest import FIXTURES, RuleVerifier, direction_rules
from tools.corpus import Abstract
from tools.documents.library import add_to_library, plan
from tools.text.cited import match
from tools.text.i18n import speaking
from tools.text.passage import Citation
from ui.export.passage import export_passage
from ui.shared.untrusted import md
from ui.terminal.readable import print_passage

BIB = r"""
@article{lee2020,
  title = {Daily coffee and liver fibrosis in hepatitis C},
  author = {Lee, Ann and Park, Bo},
  year = {2020},
  abstract = {In 900 patients with hepatitis C, daily coffee intake was associated with less advanced liver fibrosis.},
}
@article{wu2018,
  title = {Vitamin D3 and falls in older adults},
  author = {Wu, Chen},
  year = {2018},
  doi = {10.1000/falls.2018},
  abstract = {In 2,000 adults, vitamin D3 did not reduce the risk of falls or fractures.},
}
"""
PASSAGE = (
    "Coffee is popular. Daily coffee intake was associated with less advanced liver fibrosis [@lee2020]. "
    "Vitamin D3 reduces the risk of fractures in older adults [1]. We aimed to test this in our region. "
    "Daily coffee intake was associated with less advanced liver fibrosis (Lee et al., 2020).\n\n"
    "References:\n[1] Wu C. Vitamin D3 and falls in older adults. doi:10.1000/falls.2018\n"
)


@pytest.fixture(scope="module")
def library_index(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tools.index.build import build_index
    from tools.index.embed_cache import EmbeddingCache
    from tools.index.local import CorpusIndex

    tmp = tmp_path_factory.mktemp("passage_index")
    build_index(FIXTURES / "tiny_corpus.jsonl", tmp / "index", progress=False, cache=EmbeddingCache(tmp / "e.sqlite"))
    index = CorpusIndex(tmp / "index")
    (tmp / "refs.bib").write_text(BIB, encoding="utf-8")
    items, problems = plan([tmp / "refs.bib"])
    assert len(add_to_library(index, items, problems).added) == 2
    return index


def _deps(index: Any, tmp_path: Path) -> Deps:
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path}, llm={"provider": "scripted"}, live={"sources": "local,library"}
    )
    llm = ScriptedChatModel(rules=[
        *direction_rules("Daily coffee intake was associated with less advanced liver fibrosis."),
        *direction_rules("Vitamin D3 reduces the risk of fractures in older adults.", supports=False),
        {"when": "Which statement does the evidence support?", "choose": " not "},  # any other: read "against"
        {"when": "<evidence>", "reply": "The studies disagree [1]."},
        {"reply": "{}"},
    ])  # fmt: skip
    verifier = RuleVerifier({"less advanced liver fibrosis": "supports", "did not reduce": "contradicts"})
    return Deps(settings=settings, llm=llm, index=index, verifier=verifier)


def test_citations_match_library_papers_by_key_doi_and_author_year(library_index: Any) -> None:
    docs = list(library_index.docs.values())
    refs = {"1": "Wu C. Vitamin D3 and falls. doi:10.1000/falls.2018", "2": "Lee A. Daily coffee and liver fibrosis "
            "in hepatitis C. J Hep."}  # fmt: skip
    assert match(Citation("key", "lee2020"), refs, docs)[1] == "key"  # type: ignore[index]
    assert match(Citation("number", "1"), refs, docs)[1] == "doi"  # type: ignore[index]
    assert match(Citation("number", "2"), refs, docs)[1] == "title"  # type: ignore[index]
    assert match(Citation("author_year", "Lee 2020"), refs, docs)[1] == "author and year"  # type: ignore[index]
    assert match(Citation("author_year", "Lee 2021"), refs, docs) is None
    assert match(Citation("number", "7"), refs, docs) is None


def test_a_passage_is_checked_together_and_audited(library_index: Any, tmp_path: Path, capsys: Any) -> None:
    events: list[tuple[str, int]] = []
    check = check_passage(PASSAGE, _deps(library_index, tmp_path), on_event=lambda k, row: events.append((k, row.n)))
    assert [c.n for c in check.claims] == [1, 2, 3] and check.claims[2].same_as == 1
    kinds = [k for k, _ in events]
    assert kinds == ["claim"] * 3 + ["provisional"] * 2 + ["result"] * 3  # every provisional verdict comes first
    assert check.claims[0].result is not None and check.claims[2].result is None
    assert check.checked(check.claims[2]) is check.claims[0].result  # the duplicate shows the shared check
    coffee, vitamin = check.claims[0].audits, check.claims[1].audits
    assert [(a.citation, a.matched_by, a.outcome) for a in coffee] == [("[@lee2020]", "key", "supports")]
    assert [(a.citation, a.matched_by, a.outcome) for a in vitamin] == [("[1]", "doi", "contradicts")]
    assert "did not reduce" in vitamin[0].finding
    # the duplicate cites the same paper by author and year: audited too, though its check is shared
    assert [(a.matched_by, a.outcome) for a in check.claims[2].audits] == [("author and year", "supports")]
    assert {s.reason for s in check.skipped} == {"too short to state a finding", "states an aim"}

    report = export_passage(check, "md")
    assert "**[2: " in report and "Vitamin D3 reduces the risk of fractures" in report
    assert md("the paper, read alone, contradicts this claim") in report and "## Claim 1: full check" in report
    again = PassageCheck.model_validate_json(export_passage(check, "json"))
    assert again.claims[1].audits[0].outcome == "contradicts"
    bib = export_passage(check, "bib")
    assert bib.count("@article") == len({s.doc_id for c in check.claims if c.result for s in c.result.sources})
    print_passage(check)
    out = capsys.readouterr().out
    assert "⟦1: " in out and "= claim 1" in out and "claim 2: [1] “Vitamin D3 and falls in older adults”" in out


def test_a_passage_is_checked_to_the_end_when_the_llm_is_down(library_index: Any, tmp_path: Path) -> None:
    from tests.unit.test_correct import DownModel

    up = _deps(library_index, tmp_path)
    deps = Deps(settings=up.settings, llm=DownModel(rules=[]), index=up.index, verifier=up.verifier)
    check = check_passage(PASSAGE, deps)
    own = [c for c in check.claims if c.same_as is None]
    assert len(own) == 2 and all(c.result is not None and c.result.verdict is not None for c in own)
    for c in own:
        assert c.result is not None
        assert any(n.startswith("judge_sources: the LLM is unavailable") for n in c.result.notes)
        assert c.result.verdict.unread == sum(s.unread for s in c.result.silent) > 0  # listed, not counted
        assert "(provisional)" in c.result.answer


def test_bad_passages_get_one_clear_message() -> None:
    with pytest.raises(InputError, match="empty"):
        validate_passage("  \n\t ", 1000)
    with pytest.raises(InputError, match="control characters"):
        validate_passage("Coffee\x00 lowers gout.", 1000)
    text, notes = validate_passage("Coffee lowers gout risk in men. " * 40, 200)
    assert len(text) <= 200 and text.endswith(".") and "first" in notes[0]
    _, notes = validate_passage("Кофе снижает риск подагры у мужчин. Чай не влияет на подагру.", 1000)
    assert any("not in English" in n for n in notes)


def test_a_passage_without_findings_says_why(tiny_index: Any, settings: Settings) -> None:
    deps = Deps(settings=settings, llm=ScriptedChatModel(rules=[]), index=tiny_index, verifier=RuleVerifier())
    check = check_passage("We aimed to study coffee. Patients were recruited in 2020.", deps)
    assert check.claims == [] and [s.reason for s in check.skipped] == [
        "states an aim",
        "describes methods or participants",
    ]
    assert "no sentence of the text states a checkable finding" in check.notes[-1]


def test_a_library_abstract_keeps_its_citation_key(library_index: Any) -> None:
    keys = {d.cite_key for d in library_index.docs.values() if isinstance(d, Abstract) and d.source == "library"}
    assert keys == {"lee2020", "wu2018"}


GERMAN = (
    "Kaffee ist beliebt. Täglicher Kaffeekonsum war mit weniger fortgeschrittener Leberfibrose verbunden [@lee2020]. "
    "Vitamin D3 senkt das Risiko von Knochenbrüchen bei älteren Erwachsenen [1].\n\n"
    "References:\n[1] Wu C. Vitamin D3 and falls in older adults. doi:10.1000/falls.2018\n"
)
IN_ENGLISH = {
    "Kaffee ist beliebt.": "Coffee is popular.",
    "Täglicher Kaffeekonsum": "Daily coffee intake was associated with less advanced liver fibrosis [@lee2020].",
    "Vitamin D3 senkt": "Vitamin D3 reduces the risk of fractures in older adults [1].",
}


def test_a_passage_in_german_is_read_and_checked_in_english_and_answered_in_german(
    library_index: Any, tmp_path: Path, capsys: Any
) -> None:
    from agent.passage.foreign import in_english_text

    up = _deps(library_index, tmp_path)
    translating = [{"when": german, "reply": json.dumps({"english": english})} for german, english in
                   IN_ENGLISH.items()]  # fmt: skip
    writing = {"when": "that state its findings:\n<evidence>",  # each paper's finding in one sentence
               "reply": "1: In 900 patients, daily coffee intake was associated with less advanced liver fibrosis."}
    german = "Bei 900 Patienten war Kaffee mit weniger fortgeschrittener Leberfibrose verbunden."
    answering = {"when": "Translate the answer's sentences", "reply": json.dumps({"1": german})}
    assert isinstance(up.llm, ScriptedChatModel)
    llm = ScriptedChatModel(rules=[*translating, answering, writing, *up.llm.rules])
    check = check_passage(GERMAN, Deps(settings=up.settings, llm=llm, index=up.index, verifier=up.verifier))
    assert check.language == "de" and "Täglicher Kaffeekonsum" in check.asked
    assert check.text.startswith("Coffee is popular. Daily coffee intake") and "References:\n[1] Wu C." in check.text
    assert any("the LLM translated its sentences into English" in n for n in check.notes)
    coffee, vitamin = check.claims
    assert coffee.claim == "Daily coffee intake was associated with less advanced liver fibrosis."
    assert coffee.asked.startswith("Täglicher Kaffeekonsum") and vitamin.asked.startswith("Vitamin D3 senkt")
    assert [(a.citation, a.outcome) for a in vitamin.audits] == [("[1]", "contradicts")]  # its reference is kept
    assert coffee.result is not None and (coffee.result.language, coffee.result.asked) == ("de", coffee.asked)
    assert coffee.result.claim == coffee.claim  # checked in English
    assert "translate" in coffee.result.timings  # its answer went through the translation into German; a sentence
    assert all('"' in s.text for s in coffee.result.sentences if not s.translation)  # left English quotes a paper
    report = export_passage(check, "md")  # the report speaks the passage's language, as a single check's does
    assert report.startswith("# claimtrace-Prüfung eines Textes") and "## Behauptung 1: vollständige Prüfung" in report
    assert "| # | Behauptung | Urteil | Konfidenz | Arbeiten |" in report and "### Hinweise" in report
    english = export_passage(check, "md", language="en")
    assert english.startswith("# claimtrace passage check") and "## Claim 1: full check" in english
    assert "Behauptung" not in english
    with speaking("de"):  # `check-text` prints each answer in German too, its English one line below
        print_passage(check)
    printed = capsys.readouterr().out
    assert "[1] Gestützt durch 1 Studie" in printed and f"{german[:-1]} [1]." in printed
    assert "(vom LLM übersetzt; auf Englisch geprüft: " in printed and coffee.result.answer in printed
    with speaking("fr"):  # another language than the passage's: its sentences in the English checked, not German
        print_passage(check)
    printed = capsys.readouterr().out
    assert "[1] Étayée par 1 étude" in printed and german not in printed
    assert "daily coffee intake was associated with less advanced liver fibrosis [1]." in printed
    calls = len(llm.calls)
    assert in_english_text(llm, PASSAGE)[:5] == (PASSAGE, "en", [], in_english_text(llm, PASSAGE).usage, [])
    assert len(llm.calls) == calls  # an English passage takes no step
