"""Europe PMC: a recorded-format `resultType=core` answer normalised field by field; empty, malformed, failures."""

from __future__ import annotations

import httpx
import pytest

from tests.live_fakes import Script, Sleeps, fixture, live_http, live_settings, ok, run_search
from tools.live import europepmc
from tools.live.http import SourceError


def search(tmp_path, script, sleeps=None, **policy):
    return run_search(europepmc.search, live_settings(tmp_path), live_http(script, tmp_path / "c", sleeps, **policy),
                      "Does the MMR vaccine cause autism?")


def test_success_normalised_field_by_field(tmp_path):
    script = Script({"/search": [ok(fixture("europepmc_search.json"))]})
    docs = search(tmp_path, script)
    assert [d.doc_id for d in docs] == [
        "doi:10.7326/m18-2101", "doi:10.1016/s0140-6736(97)11096-0", "doi:10.1101/2020.01.01.000001"
    ]  # the record without an abstract is dropped
    hviid = docs[0]
    assert hviid.title == "Measles, Mumps, Rubella Vaccination and Autism: A Nationwide Cohort Study."
    assert hviid.sentences[0].startswith("Background: The hypothesized association between the measles")
    assert hviid.sentences[1] == (
        "Objective: To evaluate whether the MMR vaccine increases the risk for autism in children."
    )
    assert len(hviid.sentences) == 4 and all("<" not in s for s in hviid.sentences)
    assert (hviid.year, hviid.venue, hviid.doi, hviid.pmid) == (
        2019, "Annals of internal medicine", "10.7326/m18-2101", "30831578"
    )
    assert hviid.url == "https://europepmc.org/article/MED/30831578"
    assert hviid.citation_count == 412 and hviid.retracted is False and hviid.source == "europepmc"
    assert hviid.venue_citedness is None
    wakefield = docs[1]
    assert wakefield.retracted is True and wakefield.citation_count == 1500 and wakefield.year == 1998
    preprint = docs[2]
    assert preprint.title == "A preprint on vaccine uptake & autism beliefs"  # entity decoded
    assert preprint.sentences == ["Parental beliefs about autism reduce MMR uptake.",
                                  "Clear communication restores confidence."]
    assert preprint.pmid is None and preprint.venue is None and preprint.citation_count == 0

    (request,) = script.requests
    params = request.url.params
    assert request.url.path == "/rest/search"
    assert params["resultType"] == "core" and params["format"] == "json" and params["pageSize"] == "5"
    assert params["query"] == "(MMR vaccine cause autism) AND HAS_ABSTRACT:Y"  # question words dropped
    assert params["email"] == "tester@example.org"
    assert "mailto:tester@example.org" in request.headers["User-Agent"]


def test_empty_result(tmp_path):
    assert search(tmp_path, Script({"/search": [ok(fixture("europepmc_empty.json"))]})) == []


@pytest.mark.parametrize("body", ["<html>Service Unavailable</html>", '{"errCode": 500}', '{"resultList": 3}'])
def test_malformed_json(tmp_path, body):
    with pytest.raises(SourceError, match="malformed response"):
        search(tmp_path, Script({"/search": [ok(body)]}))


def test_429_with_retry_after_then_success(tmp_path):
    sleeps = Sleeps()
    script = Script({"/search": [httpx.Response(429, headers={"Retry-After": "2"}),
                                 ok(fixture("europepmc_search.json"))]})
    assert len(search(tmp_path, script, sleeps)) == 3
    assert sleeps.waits == [2.0]


def test_500_then_success(tmp_path):
    script = Script({"/search": [httpx.Response(500), ok(fixture("europepmc_empty.json"))]})
    assert search(tmp_path, script) == [] and len(script.requests) == 2


def test_timeout(tmp_path):
    with pytest.raises(SourceError, match="timed out after 10 s after 3 tries"):
        search(tmp_path, Script({"/search": [httpx.ReadTimeout("slow")]}))
