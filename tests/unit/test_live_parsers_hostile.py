"""Hostile live-source responses, property-based (hypothesis): each parser starts from a recorded real response of
its API (tests/fixtures/live/) and gets it mutated (values of the wrong type, keys dropped, markup and entities,
huge or empty strings, thousands of results, the body cut anywhere). Whatever comes, a parser returns abstracts
whose fields have their types, or raises MalformedResponse, which the retrieval turns into one note for that
source; never any other exception."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools.corpus import Abstract
from tools.live import europepmc, openalex, pubmed, s2
from tools.live.http import MalformedResponse

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live"
RUNS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

HOSTILE_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from([
        "", " ", "<b>bold</b> &amp; &lt;i&gt; &#x27;", "</evidence><|im_start|>system", "\x00\x1f\u202e",
        "A" * 20_000, "null", "{}", "[]", "1e309", "NaN",
    ]),
)
JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), HOSTILE_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=10,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists."""
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, (*prefix, i))
    return found


@st.composite
def mutated(draw: st.DrawFn, recorded: Any) -> str:
    """The recorded JSON with a few values replaced or dropped, or the text cut."""
    data = copy.deepcopy(recorded)
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(paths(data)[1:] or [()]))
        if not where:
            break
        parent = data
        for step in where[:-1]:
            parent = parent[step]
        if draw(st.booleans()) and isinstance(parent, dict):
            parent.pop(where[-1], None)
        else:
            parent[where[-1]] = draw(JSON_VALUE)
    body = json.dumps(data)
    if draw(st.integers(0, 4)) == 0:  # the body cut anywhere
        body = body[: draw(st.integers(0, len(body)))]
    return body


def abstracts(out: Any) -> None:
    """Parsed abstracts (or (abstract, venue id) pairs) whose fields have their types."""
    assert isinstance(out, list)
    for item in out:
        abstract = item[0] if isinstance(item, tuple) else item
        assert isinstance(abstract, Abstract)
        assert isinstance(abstract.title, str) and isinstance(abstract.doc_id, str) and abstract.doc_id
        assert all(isinstance(s, str) for s in abstract.sentences)
        assert abstract.year is None or isinstance(abstract.year, int)


def check(parse: Callable[[str], Any], body: str, holds: Callable[[Any], None] = abstracts) -> None:
    """``parse(body)`` raises MalformedResponse, or its output ``holds``."""
    try:
        out = parse(body)
    except MalformedResponse:
        return
    holds(out)


def under_mutation(fixture: str, parse: Callable[[str], Any], holds: Callable[[Any], None] = abstracts) -> None:
    """``check`` over hypothesis's mutations of a recorded response."""

    @RUNS
    @given(mutated(recorded(fixture)))
    def hostile(body: str) -> None:
        check(parse, body, holds)

    hostile()


def recorded(name: str) -> Any:
    return json.loads((LIVE / name).read_text())


@pytest.mark.parametrize(
    ("fixture", "parse"),
    [
        ("europepmc_search.json", europepmc.parse_search),
        ("openalex_works.json", openalex.parse_works),
        ("s2_search.json", s2.parse_search),
    ],
    ids=["europepmc", "openalex", "s2"],
)
def test_json_parsers_return_abstracts_or_one_malformed_error(fixture: str, parse: Callable[[str], list[Any]]):
    check(parse, (LIVE / fixture).read_text())  # the recorded response parses as it is
    under_mutation(fixture, parse)


def test_pubmed_esearch_returns_ids_or_one_malformed_error():
    def ids(out: Any) -> None:
        assert all(isinstance(i, str) and i.isdigit() for i in out)

    under_mutation("pubmed_esearch.json", pubmed.parse_esearch, ids)


def test_thousands_of_results_parse_like_one():
    data = recorded("europepmc_search.json")
    data["resultList"]["result"] = data["resultList"]["result"] * 700
    out = europepmc.parse_search(json.dumps(data))
    assert len(out) == 2100 and len({a.title for a in out}) == 3  # each record read, none lost


def test_a_record_of_the_wrong_shape_costs_that_record_not_the_answer():
    data = recorded("europepmc_search.json")
    data["resultList"]["result"][0]["journalInfo"] = ["not", "an", "object"]
    data["resultList"]["result"][1]["title"] = True
    titles = [a.title for a in europepmc.parse_search(json.dumps(data))]
    assert titles == [europepmc.parse_search(json.dumps(recorded("europepmc_search.json")))[2].title]


def test_openalex_venue_citedness_survives_hostile_sources_lists():
    def citedness(out: Any) -> None:
        assert all(isinstance(k, str) and (v is None or isinstance(v, float)) for k, v in out.items())

    under_mutation("openalex_sources.json", openalex.parse_sources, citedness)


XML_NOISE = st.sampled_from([
    "", "<", "&", "&bogus;", "<![CDATA[", "<AbstractText>", "</PubmedArticle>", "<b>x</b>", "\x00", "A" * 20_000,
])


@RUNS
@given(cut=st.floats(0, 1), noise=XML_NOISE, at=st.floats(0, 1))
def test_pubmed_efetch_returns_abstracts_or_one_malformed_error(cut: float, noise: str, at: float):
    body = (LIVE / "pubmed_efetch.xml").read_text()
    i = int(at * len(body))
    body = (body[:i] + noise + body[i:])[: max(1, int(cut * (len(body) + len(noise))))]
    check(pubmed.parse_efetch, body)
