"""The whole live path as a user runs it: `claimtrace ask --sources europepmc` (subprocess, scripted LLM, tiny index)
against a fake Europe PMC on loopback; the fetched abstract is cited, indexed, and found again offline. Plus the
ways a live source fails: closed port, HTTP 500, no network at all with the default "auto"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import BEARS, SURE_BEARS
from tests.integration.test_cli import CLAIM, SCRIPT, assert_one_line_error, cli_env, indexed_env, run  # noqa: F401
from tests.live_fakes import FakeSource, europepmc_page, europepmc_record
from tests.ports import free_port

DOI = "10.5555/loopback.mmr"
DOC_ID = f"doi:{DOI}"
PAGE = europepmc_page(
    [
        europepmc_record(
            "34000001",
            "MMR vaccination and autism in a loopback birth cohort",
            "<h4>Background</h4>Concerns persist that the measles-mumps-rubella (MMR) vaccine causes autism."
            "<h4>Results</h4>MMR vaccination was not associated with an increased risk of autism (hazard ratio "
            "0.93).<h4>Conclusion</h4>The study strongly supports that MMR vaccination does not increase the risk "
            "for autism.",
            doi=DOI,
        )
    ]
)


@pytest.fixture(scope="module")
def live_env(indexed_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:  # noqa: F811
    """The CLI's environment with an LLM sure that each paper it is shown reports a finding on the claim: which papers
    count (the fetched abstract among them) is then retrieval's and the real verifier's doing, not where a lukewarm
    scripted Yes meets the gate's fitted threshold."""
    script = tmp_path_factory.mktemp("live_script") / "script.json"
    script.write_text(json.dumps([SURE_BEARS if rule == BEARS else rule for rule in SCRIPT]))
    return {**indexed_env, "LLM_SCRIPT": str(script)}


def closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}/rest"


def source_notes(result: dict) -> list[str]:
    """The notes about sources (the assess node's note on pruned abstracts is about relevance, a search round's note
    about the search, a note on the papers' generated contexts about those contexts)."""
    return [n for n in result["notes"] if not n.startswith(("assess:", "search round", "supplement:"))]


def ask(env: dict[str, str], *extra: str) -> dict:
    proc = run(["ask", CLAIM, "--json", *extra], env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def test_ask_with_europepmc_cites_the_fetched_abstract_and_indexes_it(live_env: dict[str, str]):
    with FakeSource({"/search": (200, PAGE, {})}).running() as fake:
        env = {**live_env, "EUROPEPMC_BASE_URL": f"{fake.url}/rest", "CONTACT_EMAIL": "tester@example.org"}
        result = ask(env, "--sources", "europepmc", "--search-rounds", "1")
    assert source_notes(result) == []
    path, params = fake.requests[0]
    assert path == "/rest/search" and params["resultType"] == ["core"] and params["format"] == ["json"]
    assert params["email"] == ["tester@example.org"]
    # one source alone bore on the claim, so the search ran again (asked for with --search-rounds), live too, with the
    # scripted reformulation
    assert any(n.startswith("search round 2") for n in result["notes"])
    assert any("measles mumps rubella vaccination autism cohort" in p["query"][0] for _, p in fake.requests)
    assert {src["doc_id"] for src in result["sources"]} == {DOC_ID}  # only Europe PMC was searched
    first = result["sentences"][0]
    assert first["citations"] == [1] and result["sources"][0]["doc_id"] == DOC_ID
    src = result["sources"][0]
    assert src["url"] == "https://europepmc.org/article/MED/34000001" and src["year"] == 2021
    assert src["reputation_inputs"] == {"source": "europepmc", "design": "cohort", "design_basis": "text",
                                        "design_factor": 0.75, "citation_count": 25, "year": 2021}
    assert src["design"] == "cohort" and src["design_basis"] == "text"
    assert 0 < src["reputation"] <= 1
    assessment = next(a for a in result["assessments"] if a["doc_id"] == DOC_ID)
    assert assessment["reputation_inputs"] == src["reputation_inputs"]

    live_docs = Path(live_env["DATA_DIR"]) / "index" / "live_docs.jsonl"
    stored = [json.loads(line) for line in live_docs.read_text().splitlines()]
    assert [d["doc_id"] for d in stored] == [DOC_ID] and stored[0]["pmid"] == "34000001"

    # the fake server is gone: the local index alone now finds the paper (a new process, so read from disk)
    offline = ask(live_env, "--sources", "local")
    assert DOC_ID in {src["doc_id"] for src in offline["sources"]}
    assert source_notes(offline) == []

    readable = run(["ask", CLAIM, "--sources", "local"], live_env)
    assert "weight " in readable.stdout and "via europepmc" in readable.stdout


def test_unreachable_source_yields_one_note_and_still_answers(live_env: dict[str, str]):
    env = {**live_env, "EUROPEPMC_BASE_URL": closed_port_url()}
    result = ask(env, "--sources", "local,europepmc")
    assert source_notes(result) == [
        "The network is unreachable: Europe PMC did not answer within 2 s; answered from the local index."
    ]
    assert result["sources"] and result["answer"]
    assert result["timings"]["retrieve"] < 5


def test_failing_source_degrades_to_the_others(live_env: dict[str, str]):
    with FakeSource({"/search": (500, "{}", {})}).running() as fake:
        env = {**live_env, "EUROPEPMC_BASE_URL": f"{fake.url}/rest", "LIVE_TRIES": "2", "LIVE_QUERIES": "1"}
        result = ask(env, "--sources", "local,europepmc")
    assert len(fake.requests) == 2
    assert source_notes(result) == ["Europe PMC unavailable (HTTP 500 after 2 tries); answered from the other sources."]
    assert result["sources"] and result["answer"]


def test_default_auto_offline_is_fast_and_said_once(live_env: dict[str, str]):
    closed = closed_port_url()
    env = {**live_env, "SOURCES": "auto", "EUROPEPMC_BASE_URL": closed, "NCBI_BASE_URL": closed,
           "OPENALEX_BASE_URL": closed, "S2_BASE_URL": closed}
    result = ask(env)
    assert source_notes(result) == ["No live literature source is reachable (offline?); answered from the local index."]
    assert result["sources"] and result["timings"]["retrieve"] < 3


@pytest.mark.parametrize("value", ["scopus", "local,,nope", ""])
def test_bad_sources_option_is_one_clear_line(live_env: dict[str, str], value: str):
    assert_one_line_error(run(["ask", CLAIM, "--sources", value], live_env), 2, "--sources: ")
