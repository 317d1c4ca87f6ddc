"""`local` and `library` split the one index: which documents each choice searches, a paper in both read from the
library, and a check on the library citing a full-text passage with its page (result JSON, chat, terminal)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.llm.scripted import ScriptedChatModel
from agent.result import CheckResult
from agent.service import run_claim
from agent.settings.app import Settings
from agent.state import Deps
from tests.conftest import FIXTURES, RuleVerifier, direction_rules
from tests.library_files import FINDING, PAPER_DOI, paper_pdf, reference_files
from tools.corpus import Abstract
from tools.documents.library import LIBRARY, add_to_library, plan
from tools.index.library_search import EMPTY_NOTE, Scope, ScopedIndex, scope_of, scoped
from tools.live.config import parse_sources

CLAIM = "Vitamin D supplementation prevents hip fractures."
LIB = f"lib:{PAPER_DOI}"


def doc(doc_id: str, source: str | None = None, doi: str | None = None) -> Abstract:
    return Abstract(doc_id=doc_id, title=doc_id, sentences=["A sentence."], source=source, doi=doi)


def test_scope_of_each_choice():
    docs = {d.doc_id: d for d in [
        doc("1"), doc("2", doi="10.1/twin"), doc("doi:10.2/x", source="europepmc"),
        doc("lib:10.1/twin", LIBRARY, "10.1/twin"), doc("lib:abc", LIBRARY),
    ]}
    mine = frozenset({"lib:10.1/twin", "lib:abc"})
    assert scope_of(docs, local=True, library=False) == Scope(exclude=mine)
    assert scope_of(docs, local=False, library=True) == Scope(include=mine)
    assert scope_of(docs, local=True, library=True) == Scope(exclude=frozenset({"2"}))  # the library's copy wins
    corpus_only = {k: v for k, v in docs.items() if v.source != LIBRARY}
    assert scope_of(corpus_only, local=True, library=False) is None  # nothing to leave out
    assert scope_of(corpus_only, local=False, library=True) == Scope(include=frozenset())


def test_library_is_a_source_name():
    assert parse_sources("library") == "library"
    assert parse_sources("all") == "local,library,europepmc,pubmed,openalex,s2"


@pytest.fixture(scope="module")
def library_index(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The tiny corpus (which has its own vitamin D trial, doc 104) plus a library of one PDF and two abstracts."""
    from tools.index.build import build_index
    from tools.index.embed_cache import EmbeddingCache
    from tools.index.local import CorpusIndex

    tmp = tmp_path_factory.mktemp("library_index")
    build_index(FIXTURES / "tiny_corpus.jsonl", tmp / "index", progress=False, cache=EmbeddingCache(tmp / "e.sqlite"))
    index = CorpusIndex(tmp / "index")
    paper_pdf(tmp)
    reference_files(tmp)
    items, problems = plan([tmp])
    assert len(add_to_library(index, items, problems).added) == 3
    return index


def test_each_choice_ranks_only_its_documents(library_index: Any):
    vec = library_index.embed(["vitamin D hip fractures"])[0]
    mine = {d.doc_id for d in library_index.docs.values() if d.source == LIBRARY}
    only_library = ScopedIndex(library_index, scope_of(library_index.docs, local=False, library=True))
    assert {h.doc_id for h in only_library.bm25("vitamin D fractures", 10)} == {LIB}
    assert {h.doc_id for h in only_library.dense_sentences(vec, 10)} == mine
    only_local = ScopedIndex(library_index, scope_of(library_index.docs, local=True, library=False))
    local_bm25 = [h.doc_id for h in only_local.bm25("vitamin D fractures", 10)]
    assert "104" in local_bm25 and not mine & set(local_bm25)
    assert not mine & {h.doc_id for h in only_local.dense_sentences(vec, 10)}
    both, notes = scoped(library_index, local=True, library=True, explicit=False)
    assert both is library_index and notes == []  # no twins: the whole index, one ranking
    assert {LIB, "104"} <= {h.doc_id for h in both.bm25("vitamin D fractures", 10)}


def test_an_empty_library_chosen_explicitly_says_so(tiny_index: Any):
    assert scoped(tiny_index, local=False, library=True, explicit=True) == (None, [EMPTY_NOTE])
    assert scoped(tiny_index, local=True, library=True, explicit=True) == (tiny_index, [EMPTY_NOTE])
    assert scoped(tiny_index, local=True, library=True, explicit=False) == (tiny_index, [])  # auto: quietly


def check(index: Any, tmp_path: Path, sources: str) -> dict[str, Any]:
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path}, llm={"provider": "scripted"}, live={"sources": sources}
    )
    llm = ScriptedChatModel(
        rules=[
            *direction_rules(CLAIM, supports=False),
            {"when": "<evidence>", "reply": "The trial found no fewer hip fractures [1]."},
        ]
    )
    deps = Deps(settings=settings, llm=llm, index=index, verifier=RuleVerifier({"did not reduce": "contradicts"}))
    return CheckResult.from_state(run_claim(CLAIM, deps)).model_dump(mode="json")


def test_a_check_on_the_library_cites_the_page(library_index: Any, tmp_path: Path, capsys: pytest.CaptureFixture):
    from ui.chat.render import answer_markdown, source_heading
    from ui.terminal.readable import print_readable

    result = check(library_index, tmp_path, "library")
    assert {s["doc_id"] for s in result["sources"]} <= {d.doc_id for d in library_index.docs.values()
                                                         if d.source == LIBRARY}
    finding = next(s for s in result["sources"] if s["sentence"] == FINDING)
    assert finding["doc_id"] == LIB and finding["page"] == 2 and finding["stance"] == "contradicts"
    assert finding["section"] == "results; sentence 1 of 2"  # its place in the full text, as the verifier read it
    assert all(s["page"] is None for s in result["sources"] if s["doc_id"] != LIB)  # abstracts have no pages
    assert source_heading(finding).startswith(r"**[1]** _Vitamin D and hip fractures\: a trial_ (2019) · p. 2 · [link]")
    assert source_heading(finding) in answer_markdown(result)
    print_readable(result)
    assert "[1] Vitamin D and hip fractures: a trial (2019), p. 2 [randomised trial] — " in capsys.readouterr().out


def test_local_leaves_the_library_out(library_index: Any, tmp_path: Path):
    result = check(library_index, tmp_path, "local")
    assert result["sources"] and not any(s["doc_id"].startswith("lib:") for s in result["sources"])
    assert all(s["page"] is None for s in result["sources"])
