"""Which sources a check uses: the SOURCES choice, the reachability probe (fast, concurrent, remembered) and the
notes an unreachable network or source leaves. Only loopback ports are probed."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from agent.settings.app import Settings
from tests.live_fakes import live_settings
from tools.live import reach, sources
from tools.live.config import parse_sources


@pytest.fixture(autouse=True)
def fresh_probe_memory() -> Iterator[None]:
    reach.forget()
    sources.reset_offline_note()
    yield
    reach.forget()
    sources.reset_offline_note()


@pytest.fixture
def open_url() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield f"http://127.0.0.1:{s.getsockname()[1]}/api"


@pytest.fixture
def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/api"


def test_parse_sources():
    assert parse_sources("auto") == "auto"
    assert parse_sources(" S2, local ,pubmed") == "local,pubmed,s2"  # canonical order
    assert parse_sources("all") == "local,library,europepmc,pubmed,openalex,s2"
    assert parse_sources("library, local") == "local,library"
    with pytest.raises(ValueError, match="unknown source.*scopus; choose auto, all, or a comma list of local"):
        parse_sources("local,scopus")
    with pytest.raises(ValueError, match="no source given"):
        parse_sources(" , ")


def test_settings_field_from_environment(monkeypatch):
    monkeypatch.setenv("SOURCES", "europepmc,local")
    monkeypatch.setenv("EUROPEPMC_BASE_URL", "http://127.0.0.1:9/mirror")
    s = Settings(_env_file=None).live  # type: ignore[call-arg]
    assert s.sources == "local,europepmc" and s.selected_sources() == (False, ["local", "europepmc"])
    assert s.europepmc_base_url == "http://127.0.0.1:9/mirror"
    monkeypatch.setenv("SOURCES", "auto")
    every = ["local", "library", "europepmc", "pubmed", "openalex", "s2"]
    assert Settings(_env_file=None).live.selected_sources() == (True, every)  # type: ignore[call-arg]
    monkeypatch.delenv("SOURCES")
    assert Settings(_env_file=None).live.sources == "auto"  # type: ignore[call-arg]  # the default


def test_a_bad_environment_value_is_named_in_one_clear_line(monkeypatch, capsys):
    from agent.settings.app import get_settings
    from ui.terminal.cli import main

    monkeypatch.setenv("SOURCES", "local,scopus")
    get_settings.cache_clear()
    try:
        assert main(["ask", "Aspirin reduces fever."]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err.strip()
    assert err.startswith("claimtrace: bad setting: SOURCES: ") and "unknown source(s) scopus" in err
    assert "internal error" not in err and "\n" not in err


def all_urls(url: str) -> dict[str, str]:
    return {f"{n}_base_url": url for n in ("europepmc", "ncbi", "openalex", "s2")}


def test_auto_uses_the_reachable_live_sources(tmp_path, open_url, closed_url):
    settings = live_settings(tmp_path, sources="auto", **{**all_urls(closed_url), "europepmc_base_url": open_url})
    sel = sources.select_sources(settings.live)
    assert sel.local and [s.name for s in sel.live] == ["europepmc"]
    assert sel.notes == ["PubMed, OpenAlex, Semantic Scholar unreachable (no connection within 2 s); "
                         "answered from the other sources."]


def test_auto_offline_is_stated_once_per_process(tmp_path, closed_url):
    settings = live_settings(tmp_path, sources="auto", **all_urls(closed_url))
    first = sources.select_sources(settings.live)
    assert first.local and first.live == []
    assert first.notes == ["No live literature source is reachable (offline?); answered from the local index."]
    assert sources.select_sources(settings.live).notes == []


def test_explicit_sources_state_an_unreachable_network_every_time(tmp_path, closed_url):
    settings = live_settings(tmp_path, sources="europepmc,pubmed", **all_urls(closed_url))
    for _ in range(2):
        sel = sources.select_sources(settings.live)
        assert not sel.local and sel.live == []
        assert sel.notes == ["The network is unreachable: Europe PMC, PubMed did not answer within 2 s; "
                             "no other source was selected."]


def test_local_only_probes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(reach, "reachable", lambda *a, **k: pytest.fail("probed"))
    sel = sources.select_sources(live_settings(tmp_path, sources="local").live)
    assert sel.local and sel.live == [] and sel.notes == []


def test_probe_is_concurrent_bounded_and_remembered(monkeypatch):
    calls: list[tuple[str, int]] = []

    def hang(addr, timeout, out):  # a host whose DNS or SYN never answers
        calls.append(addr)
        time.sleep(5)
        out[addr] = True

    monkeypatch.setattr(reach, "_connect", hang)
    urls = [f"https://host{i}.test/api" for i in range(4)]
    t0 = time.perf_counter()
    assert reach.reachable(urls, timeout=0.3) == dict.fromkeys(urls, False)
    assert time.perf_counter() - t0 < 4 * 0.3  # one deadline for all four: four timeouts in a row take 1.2 s at least
    assert len(calls) == 4
    reach.reachable(urls, timeout=0.3)  # remembered: no second probe
    assert len(calls) == 4


def test_probe_of_real_loopback_ports(open_url, closed_url):
    assert reach.reachable([open_url, closed_url]) == {open_url: True, closed_url: False}


def test_probe_goes_to_the_proxy_when_one_is_set(monkeypatch):
    monkeypatch.setenv("https_proxy", "http://proxy.test:3128")
    monkeypatch.setenv("no_proxy", "")
    assert reach.target("https://api.openalex.org/works") == ("proxy.test", 3128)
    monkeypatch.delenv("https_proxy")
    assert reach.target("https://api.openalex.org/works") == ("api.openalex.org", 443)
