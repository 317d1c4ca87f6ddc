"""Live retrieval for one check: every selected source is a tool, all searches run concurrently under one budget,
results are merged across sources into "<source>|<query>" lists, and a failing source leaves exactly one note."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from tests.live_fakes import Script, fixture, live_settings, ok
from tools.live import http, openalex
from tools.live.retrieval import live_queries, make_live_tools, search_live
from tools.live.sources import REGISTRY

ALL = list(REGISTRY.values())
QUERIES = ["The MMR vaccine causes autism.", "The MMR vaccine does not cause autism."]


@pytest.fixture(autouse=True)
def fresh_process_state():
    """Venue memory and the per-host rate limiters are per process; each test starts without them."""
    openalex._citedness.clear()
    http._limiters.clear()
    yield
    http._limiters.clear()


def all_sources_ok() -> dict:
    return {
        "/rest/search": [ok(fixture("europepmc_search.json"))],
        "/esearch.fcgi": [ok(fixture("pubmed_esearch.json"))],
        "/efetch.fcgi": [ok(fixture("pubmed_efetch.xml"), "text/xml")],
        "/works": [ok(fixture("openalex_works.json"))],
        "/sources": [ok(fixture("openalex_sources.json"))],
        "/paper/search": [ok(fixture("s2_search.json"))],
    }


async def no_wait(seconds: float) -> None:  # rate-limit and backoff waits are tested in test_live_http.py
    return None


def run(settings, script, sources=ALL, queries=QUERIES, known=None, local=True):
    cache = settings.stores.live_cache_dir
    return asyncio.run(search_live(sources, queries, settings.live, cache, known, local=local,
                                   transport=script.transport(), sleep=no_wait))


def test_tools_are_langchain_tools_with_specs(tmp_path):
    tools = make_live_tools(None, live_settings(tmp_path).live, ALL)  # type: ignore[arg-type]
    assert [t.name for t in tools] == ["europepmc_search", "pubmed_search", "openalex_search", "s2_search"]
    assert "Europe PMC" in tools[0].description and set(tools[0].args) == {"query", "k"}


def test_live_queries_prefer_claim_and_opposite():
    qs = [("c", "claim"), ("q1", "question"), ("q2", "question"), ("o", "opposite")]
    assert live_queries(qs, 3) == ["c", "o", "q1"]
    assert live_queries(qs, 0) == []


def test_every_source_every_query_merged(tmp_path):
    script = Script(all_sources_ok())
    out = run(live_settings(tmp_path), script)
    assert set(out.ranked) == {f"{s}|{q}" for s in ("europepmc", "pubmed", "openalex", "s2") for q in QUERIES}
    assert out.notes == []
    # the Hviid paper comes from all four sources and is one document
    for name in ("europepmc", "pubmed", "openalex", "s2"):
        assert out.ranked[f"{name}|{QUERIES[0]}"][0] == "doi:10.7326/m18-2101"
    hviid = out.docs["doi:10.7326/m18-2101"]
    assert hviid.source == "europepmc" and hviid.citation_count == 530 and hviid.venue_citedness == 9.87
    assert out.docs["doi:10.1016/s0140-6736(97)11096-0"].retracted is True
    assert len(out.docs) == 4
    # second check: everything from the on-disk cache
    again = Script(all_sources_ok())
    assert run(live_settings(tmp_path), again).ranked == out.ranked and again.requests == []


def test_a_failing_source_leaves_one_note_and_the_others_answer(tmp_path):
    routes = all_sources_ok()
    routes["/rest/search"] = [httpx.Response(500)]
    out = run(live_settings(tmp_path, tries=2), Script(routes))
    assert out.notes == ["Europe PMC unavailable (HTTP 500 after 2 tries); answered from the other sources."]
    assert not any(k.startswith("europepmc|") for k in out.ranked)
    assert "doi:10.7326/m18-2101" in out.docs


def test_partial_failure_and_malformed_answers(tmp_path):
    routes = all_sources_ok()
    routes["/paper/search"] = [ok(fixture("s2_search.json")), ok("<html>oops</html>")]
    out = run(live_settings(tmp_path), Script(routes), sources=[REGISTRY["s2"]], local=False)
    assert out.notes == ["Semantic Scholar answered 1 of 2 searches (malformed response: not a Semantic Scholar "
                         "search result (JSONDecodeError) for the rest)."]


def test_only_source_failing_says_nothing_else_was_selected(tmp_path):
    script = Script({"/paper/search": [httpx.Response(404)]})
    out = run(live_settings(tmp_path), script, sources=[REGISTRY["s2"]], queries=QUERIES[:1], local=False)
    assert out.notes == ["Semantic Scholar unavailable (HTTP 404); no other source was selected."]
    assert out.ranked == {} and out.docs == {}


def test_the_time_budget_cuts_a_slow_source(tmp_path):
    async def slow(request: httpx.Request) -> httpx.Response:
        if "/paper/search" in request.url.path:
            await asyncio.sleep(10)
        return ok(fixture("europepmc_search.json"))

    settings = live_settings(tmp_path, budget=0.5)
    transport = httpx.MockTransport(slow)
    sources = [REGISTRY["europepmc"], REGISTRY["s2"]]
    t0 = time.perf_counter()
    out = asyncio.run(search_live(sources, QUERIES[:1], settings.live, tmp_path, local=True, transport=transport))
    assert time.perf_counter() - t0 < 10  # the slow source's 10 s were not waited for, however slow this machine
    assert out.notes == ["Semantic Scholar unavailable (no answer within 0.5 s); answered from the other sources."]
    assert list(out.ranked) == [f"europepmc|{QUERIES[0]}"]


def test_known_index_ids_are_reused(tmp_path):
    def find(doi, pmid):
        return "pmid:30831578" if pmid == "30831578" or doi == "10.7326/m18-2101" else None

    out = run(live_settings(tmp_path), Script(all_sources_ok()), sources=[REGISTRY["s2"]], known=find)
    assert out.ranked[f"s2|{QUERIES[0]}"] == ["pmid:30831578"]
