"""Semantic Scholar Graph API paper search normalised field by field; empty, malformed, failures, API key."""

from __future__ import annotations

import httpx
import pytest

from tests.live_fakes import Script, Sleeps, fixture, live_http, live_settings, ok, run_search
from tools.live import s2
from tools.live.http import SourceError


def search(tmp_path, script, sleeps=None, **settings):
    return run_search(s2.search, live_settings(tmp_path, **settings), live_http(script, tmp_path / "c", sleeps),
                      "Does MMR vaccination cause autism?")


def test_success_normalised_field_by_field(tmp_path):
    script = Script({"/paper/search": [ok(fixture("s2_search.json"))]})
    (doc,) = search(tmp_path, script)  # the paper without an abstract is dropped
    assert doc.doc_id == "doi:10.7326/m18-2101"
    assert doc.title == "Measles, Mumps, Rubella Vaccination and Autism"
    assert doc.sentences == [
        "The hypothesized association between the MMR vaccine and autism continues to cause concern.",
        "MMR vaccination does not increase the risk for autism.",
    ]
    assert (doc.year, doc.venue, doc.doi, doc.pmid) == (2019, "Annals of Internal Medicine", "10.7326/m18-2101",
                                                        "30831578")
    assert doc.url == "https://www.semanticscholar.org/paper/0d2ba1a3c7c6e8a5f0ea2a6f1b4e3f0f3b4c8e1a"
    assert doc.citation_count == 498 and doc.retracted is False and doc.source == "s2"
    (request,) = script.requests
    assert request.url.path == "/graph/v1/paper/search"
    assert request.url.params["query"] == "MMR vaccination cause autism" and request.url.params["limit"] == "5"
    assert request.url.params["fields"] == "title,abstract,year,venue,externalIds,citationCount,url,publicationTypes"
    assert "x-api-key" not in request.headers


def test_api_key_goes_in_the_header(tmp_path):
    script = Script({"/paper/search": [ok(fixture("s2_empty.json"))]})
    assert search(tmp_path, script, s2_api_key="s2-key") == []  # S2 leaves out "data" when nothing matched
    assert script.requests[0].headers["x-api-key"] == "s2-key"
    assert "s2-key" not in str(script.requests[0].url)


@pytest.mark.parametrize("body", ["[]", "{}", '{"data": "x", "total": 1}', "rate limited"])
def test_malformed_json(tmp_path, body):
    with pytest.raises(SourceError, match="malformed response"):
        search(tmp_path, Script({"/paper/search": [ok(body)]}))


def test_429_with_retry_after_then_success(tmp_path):
    sleeps = Sleeps()
    too_many = httpx.Response(429, headers={"Retry-After": "1"},
                              json={"message": "Too Many Requests. Please wait and try again or apply for a key."})
    script = Script({"/paper/search": [too_many, ok(fixture("s2_search.json"))]})
    assert len(search(tmp_path, script, sleeps)) == 1 and sleeps.waits == [1.0]


def test_429_without_retry_after_backs_off_then_gives_up(tmp_path):
    sleeps = Sleeps()
    with pytest.raises(SourceError, match="HTTP 429 after 3 tries"):
        search(tmp_path, Script({"/paper/search": [httpx.Response(429)]}), sleeps)
    assert sleeps.waits == [0.5, 1.0]


def test_500_then_success_and_timeout(tmp_path):
    script = Script({"/paper/search": [httpx.Response(504), ok(fixture("s2_search.json"))]})
    assert len(search(tmp_path, script)) == 1
    with pytest.raises(SourceError, match="timed out"):
        search(tmp_path / "t", Script({"/paper/search": [httpx.ReadTimeout("slow")]}))
