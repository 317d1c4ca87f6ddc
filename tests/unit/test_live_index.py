"""Fetched abstracts join the local index (real Chroma, BM25, MiniLM on the tiny corpus): searchable at once, kept
across a restart and a rebuild, deduplicated, and reached by the retrieve node from a loopback Europe PMC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langgraph.runtime import Runtime

from agent.llm.scripted import ScriptedChatModel
from agent.nodes.fuse import fuse
from agent.nodes.retrieve import retrieve
from agent.nodes.select_evidence import select_evidence
from agent.state import Deps, Query
from tests.conftest import FIXTURES, RuleVerifier
from tests.live_fakes import FakeSource, europepmc_page, europepmc_record, live_settings
from tools.corpus import Abstract
from tools.index.build import build_index
from tools.index.local import LIVE_DOCS, CorpusIndex
from tools.live import reach

FRESH = Abstract(
    doc_id="doi:10.5555/zinc.colds",
    title="Zinc lozenges and the duration of the common cold: a randomized trial",
    sentences=[
        "We randomly assigned 200 adults with a new common cold to zinc acetate lozenges or placebo.",
        "Zinc lozenges shortened the duration of cold symptoms by 2.6 days.",
        "Adverse effects were mild.",
    ],
    year=2020,
    venue="Journal of Loopback Studies",
    doi="10.5555/zinc.colds",
    pmid="33333333",
    citation_count=12,
    source="europepmc",
)


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    out = tmp_path / "index"
    build_index(FIXTURES / "tiny_corpus.jsonl", out, progress=False)
    return out


def test_added_abstracts_are_searchable_and_survive_a_restart(index_dir):
    index = CorpusIndex(index_dir)
    assert index.add_abstracts([FRESH]) == [FRESH.doc_id]
    kept = index.docs[FRESH.doc_id]
    assert kept.origin is not None and kept.origin.added_at  # when it entered the index (`claimtrace library list`)
    assert kept.model_copy(update={"origin": None}) == FRESH
    assert index.bm25("zinc lozenges common cold", 3)[0].doc_id == FRESH.doc_id
    dense = index.dense_sentences(index.embed(["Do zinc lozenges shorten colds?"])[0], 3)
    assert dense[0].doc_id == FRESH.doc_id
    assert index.sentence_vectors([FRESH.doc_id])[FRESH.doc_id].shape == (3, 384)
    assert index.find_doc("10.5555/ZINC.COLDS", None) == FRESH.doc_id
    assert index.find_doc(None, "33333333") == FRESH.doc_id and index.find_doc("10.1/none", "1") is None
    assert index.bm25("MMR autism", 3)[0].doc_id in {"101", "102", "106"}  # the corpus is still searched

    restarted = CorpusIndex(index_dir)
    assert restarted.docs[FRESH.doc_id] == kept
    assert restarted.bm25("zinc lozenges common cold", 3)[0].doc_id == FRESH.doc_id
    assert restarted.find_doc(None, "33333333") == FRESH.doc_id


def test_adding_again_refreshes_metadata_only(index_dir):
    index = CorpusIndex(index_dir)
    index.add_abstracts([FRESH])
    assert index.add_abstracts([FRESH]) == []  # nothing new, nothing changed: nothing written
    lines = (index_dir / LIVE_DOCS).read_text().splitlines()
    assert len(lines) == 1
    newer = FRESH.model_copy(update={"sentences": ["Other text."], "citation_count": 40, "retracted": True,
                                     "venue_citedness": 3.2, "notices": ["erratum"], "mesh_terms": ["Humans"]})
    assert index.add_abstracts([newer]) == []
    doc = index.docs[FRESH.doc_id]
    assert doc.sentences == FRESH.sentences  # stored sentence numbers stay valid
    assert (doc.citation_count, doc.retracted, doc.venue_citedness) == (40, True, 3.2)
    assert (doc.notices, doc.mesh_terms) == (["erratum"], ["Humans"])
    later = FRESH.model_copy(update={"notices": ["expression of concern"]})
    index.add_abstracts([later])
    assert index.docs[FRESH.doc_id].notices == ["erratum", "expression of concern"]  # a notice is never forgotten
    assert CorpusIndex(index_dir).docs[FRESH.doc_id] == index.docs[FRESH.doc_id]  # the later line wins after a restart


def test_corpus_documents_are_never_changed(index_dir):
    index = CorpusIndex(index_dir)
    before = index.docs["101"]
    index.add_abstracts([before.model_copy(update={"citation_count": 5, "source": "pubmed"})])
    assert index.docs["101"] == before and not (index_dir / LIVE_DOCS).exists()


def test_a_rebuild_embeds_the_fetched_abstracts_again(index_dir):
    CorpusIndex(index_dir).add_abstracts([FRESH])
    build_index(FIXTURES / "tiny_corpus.jsonl", index_dir, progress=False, force=True)
    index = CorpusIndex(index_dir)
    dense = index.dense_sentences(index.embed(["zinc lozenges shorten colds"])[0], 2)
    assert dense[0].doc_id == FRESH.doc_id


def test_embeddings_of_abstracts_this_machine_has_no_text_of_are_skipped(index_dir):
    """A shared Chroma server holds what another machine fetched; this one's live_docs.jsonl does not list it."""
    CorpusIndex(index_dir).add_abstracts([FRESH])
    (index_dir / LIVE_DOCS).unlink()
    other = CorpusIndex(index_dir)
    vec = other.embed(["zinc lozenges shorten colds"])[0]
    assert FRESH.doc_id not in {h.doc_id for h in other.dense_sentences(vec, 5)}


def test_missing_embeddings_are_made_on_demand(index_dir):
    index = CorpusIndex(index_dir)
    index.add_abstracts([FRESH])
    index._sentences.delete(ids=[f"{FRESH.doc_id}:{i}" for i in range(3)])
    assert index.sentence_vectors([FRESH.doc_id])[FRESH.doc_id].shape == (3, 384)


def test_retrieve_node_searches_a_loopback_europe_pmc_and_indexes_what_it_finds(index_dir, tmp_path):
    reach.forget()
    page = europepmc_page([europepmc_record("33333333", FRESH.title, " ".join(FRESH.sentences),
                                            doi="10.5555/zinc.colds")])
    claim = "Zinc lozenges shorten the common cold."
    with FakeSource({"/search": (200, page, {})}).running() as fake:
        settings = live_settings(tmp_path, sources="local,europepmc", europepmc_base_url=f"{fake.url}/rest")
        index = CorpusIndex(index_dir)
        deps = Deps(settings=settings, llm=ScriptedChatModel(rules=[]), index=index, verifier=RuleVerifier())
        state: dict = {"claim": claim, "queries": [Query(text=claim, kind="claim")]}
        out = retrieve(state, Runtime(context=deps))  # type: ignore[arg-type]
    assert out["notes"] == []
    assert set(out["ranked_lists"]) == {f"bm25_search|{claim}", f"dense_sentence_search|{claim}",
                                        f"europepmc|{claim}"}
    assert out["ranked_lists"][f"europepmc|{claim}"] == ["doi:10.5555/zinc.colds"]
    assert fake.requests[0][1]["resultType"] == ["core"]
    assert "doi:10.5555/zinc.colds" in index.docs  # added before the next nodes look documents up
    fused = fuse({**state, **out}, Runtime(context=deps))  # type: ignore[arg-type]
    assert fused["candidates"][0].doc_id == "doi:10.5555/zinc.colds"
    assert "europepmc" in fused["candidates"][0].found_by
    evidence = select_evidence({**state, **out, **fused}, Runtime(context=deps))["evidence"]  # type: ignore[arg-type]
    assert evidence[0].doc_id == "doi:10.5555/zinc.colds" and evidence[0].year == 2021
    assert evidence[0].url == "https://europepmc.org/article/MED/33333333"

    # a later check with the local index only finds it
    local = live_settings(tmp_path, sources="local")
    again = retrieve(state, Runtime(context=Deps(settings=local, llm=deps.llm, index=CorpusIndex(index_dir),  # type: ignore[arg-type]
                                                 verifier=deps.verifier)))
    assert again["ranked_lists"][f"bm25_search|{claim}"][0] == "doi:10.5555/zinc.colds"
    assert json.loads((index_dir / LIVE_DOCS).read_text())["source"] == "europepmc"


def test_a_failing_index_costs_the_live_results_not_the_check(tmp_path):
    class BrokenStore:
        docs: dict = {}

        def find_doc(self, doi, pmid):
            return None

        def add_abstracts(self, docs):
            raise OSError("disk full")

    reach.forget()
    page = europepmc_page([europepmc_record("1", "T", "Zinc lozenges shortened colds.", doi="10.5555/z")])
    with FakeSource({"/search": (200, page, {})}).running() as fake:
        settings = live_settings(tmp_path, sources="europepmc", europepmc_base_url=f"{fake.url}/rest")
        deps = Deps(settings=settings, llm=ScriptedChatModel(rules=[]), index=BrokenStore(), verifier=RuleVerifier())
        out = retrieve({"claim": "c", "queries": [Query(text="c", kind="claim")]}, Runtime(context=deps))  # type: ignore[arg-type]
    assert out["ranked_lists"] == {}
    assert out["notes"] == ["fetched abstracts could not be added to the index (OSError)"]
