"""The chat's source choice: the multi-select's value becomes the turn's SOURCES; the process's deps stay as they
were."""

from __future__ import annotations

from dataclasses import replace

from agent.llm.scripted import ScriptedChatModel
from agent.state import Deps
from tests.live_fakes import live_settings
from ui.chat.sources import chosen, initial, turn_deps


def test_widget_value_to_sources(tmp_path):
    auto = live_settings(tmp_path, sources="auto")
    assert initial(auto) == ["local", "library", "europepmc", "pubmed", "openalex", "s2"]
    assert chosen(None, auto) == "auto" and chosen([], auto) == "auto"
    assert chosen(["s2", "local", "library", "europepmc", "pubmed", "openalex"], auto) == "auto"  # everything ticked
    assert chosen(["library"], auto) == "library"  # the user's own documents only
    assert chosen(["pubmed", "local"], auto) == "local,pubmed"
    assert chosen(["bogus"], auto) == "auto"  # a tampered value falls back to the configured choice
    local = live_settings(tmp_path, sources="local")
    assert initial(local) == ["local"]
    assert chosen(["local", "europepmc", "pubmed", "openalex", "s2"], local) == "local,europepmc,pubmed,openalex,s2"


def test_turn_deps_carry_the_choice_without_touching_the_process_deps(tmp_path):
    deps = Deps(settings=live_settings(tmp_path, sources="auto"), llm=ScriptedChatModel(), index=object(),
                verifier=None)
    assert turn_deps(deps, None) is deps
    assert turn_deps(deps, {"sources": ["local", "library", "europepmc", "pubmed", "openalex", "s2"]}) is deps
    turn = turn_deps(deps, {"sources": ["europepmc"]})
    assert turn.settings.live.sources == "europepmc" and turn.index is deps.index and turn.llm is deps.llm
    assert deps.settings.live.sources == "auto"


def test_the_search_again_switch_sets_the_rounds_of_a_turn(tmp_path):
    deps = Deps(settings=live_settings(tmp_path, sources="auto"), llm=ScriptedChatModel(), index=object(),
                verifier=None)
    assert deps.settings.retrieval.search_rounds == 0  # off unless the user asks
    assert turn_deps(deps, {"search_again": False}) is deps
    on = turn_deps(deps, {"search_again": True, "sources": ["europepmc"]})
    assert on.settings.retrieval.search_rounds == 1 and on.settings.live.sources == "europepmc"
    three = replace(deps, settings=deps.settings.with_values(retrieval={"search_rounds": 3}))
    assert turn_deps(three, {"search_again": True}) is three  # the configured number stands
    assert turn_deps(three, {"search_again": False}).settings.retrieval.search_rounds == 0
    assert turn_deps(three, {"search_again": "yes"}) is three  # not a switch value: the configured one
