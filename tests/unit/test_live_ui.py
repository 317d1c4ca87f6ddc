"""The chat's source choice: the multi-select's value becomes the turn's SOURCES; the process's deps stay as they
were."""

from __future__ import annotations

from agent.scripted import ScriptedChatModel
from agent.state import Deps
from tests.live_fakes import live_settings
from ui.sources import chosen, initial, turn_deps


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
