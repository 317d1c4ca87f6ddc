"""PubMed (NCBI E-utilities): esearch JSON then efetch XML, normalised field by field; empty, malformed, failures,
and the 3 requests/s limit without a key."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.live_fakes import Script, Sleeps, fixture, live_http, live_settings, ok, run_search
from tools.live import pubmed
from tools.live.http import LiveHttp, RateLimiter, SourceError

XML = "text/xml; charset=UTF-8"


def search(tmp_path, script, sleeps=None, settings=None, **policy):
    return run_search(pubmed.search, settings or live_settings(tmp_path),
                      live_http(script, tmp_path / "c", sleeps, **policy), "Is the MMR vaccine linked to autism?")


def routes(esearch="pubmed_esearch.json", efetch="pubmed_efetch.xml"):
    return Script({"/esearch.fcgi": [ok(fixture(esearch))], "/efetch.fcgi": [ok(fixture(efetch), XML)]})


def test_success_normalised_field_by_field(tmp_path):
    script = routes()
    docs = search(tmp_path, script)
    # relevance order of esearch, not efetch's order; the comment without an abstract is dropped
    assert [d.pmid for d in docs] == ["30831578", "9500320"]
    hviid, wakefield = docs
    assert hviid.doc_id == "doi:10.7326/m18-2101"
    assert hviid.title == "Measles, Mumps, Rubella Vaccination and Autism: A Nationwide Cohort Study."
    assert hviid.sentences == [  # labelled sections kept as "LABEL: text", inline markup flattened
        "BACKGROUND: The hypothesized association between the measles, mumps, rubella (MMR) vaccine and autism "
        "continues to cause concern and challenge vaccine uptake.",
        "RESULTS: Comparing MMR-vaccinated with MMR-unvaccinated children yielded a fully adjusted autism hazard "
        "ratio of 0.93 (95% CI, 0.85 to 1.01; P = 0.07).",
        "CONCLUSION: The study strongly supports that MMR vaccination does not increase the risk for autism.",
    ]
    assert (hviid.year, hviid.venue, hviid.doi) == (2019, "Annals of internal medicine", "10.7326/m18-2101")
    assert hviid.url == "https://pubmed.ncbi.nlm.nih.gov/30831578/"
    assert hviid.citation_count is None and hviid.retracted is False and hviid.source == "pubmed"
    assert wakefield.retracted is True  # "Retracted Publication" type (and a RetractionIn correction)
    assert wakefield.year == 1998  # from <MedlineDate>1998 Feb-Mar</MedlineDate>
    assert wakefield.doi == "10.1016/s0140-6736(97)11096-0"

    (es,) = script.calls("/esearch.fcgi")
    assert es.url.path == "/eutils/esearch.fcgi"
    assert es.url.params["db"] == "pubmed" and es.url.params["retmode"] == "json"
    assert es.url.params["term"] == "MMR vaccine linked autism" and es.url.params["retmax"] == "5"
    assert es.url.params["tool"] == "claimtrace" and es.url.params["email"] == "tester@example.org"
    assert "api_key" not in es.url.params
    (ef,) = script.calls("/efetch.fcgi")
    assert ef.url.params["id"] == "30831578,9500320,22222222" and ef.url.params["retmode"] == "xml"


def test_retraction_by_correction_alone(tmp_path):
    body = fixture("pubmed_efetch.xml").replace(
        '<PublicationType UI="D016441">Retracted Publication</PublicationType>', ""
    )
    docs = pubmed.parse_efetch(body)
    assert next(d for d in docs if d.pmid == "9500320").retracted is True


def test_api_key_is_sent_and_raises_the_rate(tmp_path):
    settings = live_settings(tmp_path, ncbi_api_key="k123")
    script = routes()
    search(tmp_path, script, settings=settings)
    assert script.requests[0].url.params["api_key"] == "k123"
    assert pubmed.rate(settings.live) == 10.0 and pubmed.rate(live_settings(tmp_path).live) == 3.0


def test_empty_result_makes_no_efetch(tmp_path):
    script = routes(esearch="pubmed_esearch_empty.json")
    assert search(tmp_path, script) == []
    assert script.calls("/efetch.fcgi") == []


@pytest.mark.parametrize(
    ("esearch", "efetch", "match"),
    [
        ('{"esearchresult": {"ERROR": "Invalid query"}}', None, "not an esearch result"),
        ("<html>busy</html>", None, "not an esearch result"),
        (None, "<PubmedArticleSet><PubmedArticle>", "not XML"),
        (None, "<eFetchResult><ERROR>Empty id list</ERROR></eFetchResult>", "not <PubmedArticleSet>"),
    ],
)
def test_malformed_json_or_xml(tmp_path, esearch, efetch, match):
    script = Script({
        "/esearch.fcgi": [ok(esearch or fixture("pubmed_esearch.json"))],
        "/efetch.fcgi": [ok(efetch or fixture("pubmed_efetch.xml"), XML)],
    })
    with pytest.raises(SourceError, match=match):
        search(tmp_path, script)


def test_429_with_retry_after_then_success(tmp_path):
    sleeps = Sleeps()
    script = Script({
        "/esearch.fcgi": [httpx.Response(429, headers={"Retry-After": "1"}, json={"error": "API rate limit exceeded"}),
                          ok(fixture("pubmed_esearch.json"))],
        "/efetch.fcgi": [ok(fixture("pubmed_efetch.xml"), XML)],
    })
    assert len(search(tmp_path, script, sleeps)) == 2
    assert sleeps.waits == [1.0]


def test_500_then_success_and_timeout(tmp_path):
    script = Script({
        "/esearch.fcgi": [ok(fixture("pubmed_esearch.json"))],
        "/efetch.fcgi": [httpx.Response(502), ok(fixture("pubmed_efetch.xml"), XML)],
    })
    assert len(search(tmp_path, script)) == 2
    timeout = Script({"/esearch.fcgi": [httpx.ConnectTimeout("down")]})
    with pytest.raises(SourceError, match="timed out"):
        search(tmp_path / "other", timeout)


def test_three_requests_per_second_without_a_key(tmp_path):
    """Two searches at once (4 requests) through the real per-host limiter at NCBI's rate, on a fake clock."""
    clock = [0.0]
    starts: list[float] = []
    limiter = RateLimiter(pubmed.rate(live_settings(tmp_path).live), clock=lambda: clock[0])

    async def sleep(seconds: float) -> None:
        clock[0] += seconds

    def record(request: httpx.Request) -> httpx.Response:
        starts.append(clock[0])
        body = fixture("pubmed_esearch.json") if "esearch" in request.url.path else fixture("pubmed_efetch.xml")
        return ok(body)

    async def go() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(record)) as client:
            http = LiveHttp(client, None, sleep=sleep, limiters=lambda url, rate: limiter)
            settings = live_settings(tmp_path).live
            await asyncio.gather(pubmed.search(http, settings, "a", 3), pubmed.search(http, settings, "b", 3))

    asyncio.run(go())
    assert len(starts) == 4
    assert all(b - a >= 1 / 3 - 1e-9 for a, b in zip(sorted(starts), sorted(starts)[1:], strict=False))
