"""OpenAlex: works search with the abstract rebuilt from `abstract_inverted_index`, and the venue's 2-year mean
citedness from one batched, cached `/sources` request."""

from __future__ import annotations

import httpx
import pytest

from tests.live_fakes import Script, Sleeps, fixture, live_http, live_settings, ok, run_search
from tools.live import openalex
from tools.live.http import SourceError


@pytest.fixture(autouse=True)
def fresh_venue_memory():
    openalex._citedness.clear()
    yield
    openalex._citedness.clear()


def search(tmp_path, script, sleeps=None, **settings):
    return run_search(openalex.search, live_settings(tmp_path, **settings), live_http(script, tmp_path / "c", sleeps),
                      "Does MMR vaccination cause autism?")


def routes(works="openalex_works.json", sources="openalex_sources.json"):
    return Script({"/works": [ok(fixture(works))], "/sources": [ok(fixture(sources))]})


def test_inverted_index_back_to_text():
    assert openalex.abstract_from_inverted_index({"b": [1], "a": [0, 2]}) == "a b a"
    assert openalex.abstract_from_inverted_index(None) == ""
    assert openalex.abstract_from_inverted_index({"x": "not positions"}) == ""


def test_success_normalised_field_by_field(tmp_path):
    script = routes()
    docs = search(tmp_path, script)
    assert [d.doc_id for d in docs] == ["doi:10.7326/m18-2101", "openalex:W1000000001"]  # no-abstract work dropped
    hviid, forum = docs
    assert hviid.title == "Measles, Mumps, Rubella Vaccination and Autism"
    assert hviid.sentences == [
        "The hypothesized association between MMR vaccine and autism continues to cause concern.",
        "No increased risk found.",
        "The study strongly supports no link with autism",
    ]
    assert (hviid.year, hviid.venue, hviid.doi, hviid.pmid) == (
        2019, "Annals of Internal Medicine", "10.7326/m18-2101", "30831578"
    )
    assert hviid.url == "https://doi.org/10.7326/m18-2101"
    assert hviid.citation_count == 530 and hviid.retracted is False and hviid.source == "openalex"
    assert hviid.venue_citedness == pytest.approx(9.87)
    assert forum.retracted is True and forum.venue_citedness == pytest.approx(0.4)
    assert forum.url == "https://example.org/forum-study" and forum.doi is None

    (works,) = script.calls("/works")
    assert works.url.params["search"] == "MMR vaccination cause autism"
    assert works.url.params["filter"] == "has_abstract:true" and works.url.params["per-page"] == "5"
    assert "abstract_inverted_index" in works.url.params["select"]
    assert works.url.params["mailto"] == "tester@example.org"
    (sources,) = script.calls("/sources")  # one batched request for both venues
    assert sources.url.params["filter"] == "openalex:S4210174010|S999"


def test_venue_citedness_is_remembered_and_cached(tmp_path):
    script = routes()
    search(tmp_path, script)
    search(tmp_path / "again", script)  # new disk cache: works fetched again, venues known in memory
    assert len(script.calls("/works")) == 2 and len(script.calls("/sources")) == 1
    openalex._citedness.clear()
    search(tmp_path, script)  # same disk cache: no request at all
    assert len(script.requests) == 3


def test_a_failing_venue_lookup_only_loses_the_signal(tmp_path):
    script = Script({"/works": [ok(fixture("openalex_works.json"))], "/sources": [httpx.Response(500)]})
    docs = search(tmp_path, script)
    assert len(docs) == 2 and all(d.venue_citedness is None for d in docs)


def test_api_key_and_empty_result(tmp_path):
    script = routes(works="openalex_empty.json")
    assert search(tmp_path, script, openalex_api_key="oa-key") == []
    assert script.requests[0].url.params["api_key"] == "oa-key"
    assert script.calls("/sources") == []


@pytest.mark.parametrize("body", ["{", '{"meta": {}}', '{"results": {"a": 1}}'])
def test_malformed_json(tmp_path, body):
    with pytest.raises(SourceError, match="malformed response"):
        search(tmp_path, Script({"/works": [ok(body)]}))


def test_429_with_retry_after_then_success(tmp_path):
    sleeps = Sleeps()
    script = Script({
        "/works": [httpx.Response(429, headers={"Retry-After": "4"}), ok(fixture("openalex_works.json"))],
        "/sources": [ok(fixture("openalex_sources.json"))],
    })
    assert len(search(tmp_path, script, sleeps)) == 2 and sleeps.waits == [4.0]


def test_500_then_success_and_timeout(tmp_path):
    script = Script({"/works": [httpx.Response(500), ok(fixture("openalex_empty.json"))]})
    assert search(tmp_path, script) == []
    with pytest.raises(SourceError, match="timed out"):
        search(tmp_path / "t", Script({"/works": [httpx.ReadTimeout("slow")]}))
