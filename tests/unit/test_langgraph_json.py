"""langgraph.json (LangGraph Studio / `langgraph dev`): every graph it names loads the way langgraph-api loads it, by
file path, and is a compiled graph without a checkpointer of its own (the server brings one)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph

REPO = Path(__file__).resolve().parents[2]


def test_langgraph_json_points_at_compiled_graphs():
    spec = json.loads((REPO / "langgraph.json").read_text())
    assert spec["dependencies"] == ["."] and spec["graphs"]
    for graph_id, target in spec["graphs"].items():
        file, _, attr = target.rpartition(":")
        path = (REPO / file).resolve()
        assert path.is_file(), f"{graph_id}: {file} does not exist"
        module_spec = importlib.util.spec_from_file_location(f"langgraph_json_{graph_id}", path)
        assert module_spec and module_spec.loader
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        graph = getattr(module, attr)
        assert isinstance(graph, CompiledStateGraph), f"{graph_id}: {attr} is {type(graph).__name__}"
        assert graph.checkpointer is None


def test_the_studio_graph_is_the_chat_thread_graph():
    from agent.followup.graph import graph

    assert {"route", "check", "sources", "answer"} <= set(graph.get_graph().nodes)
    assert "message" in graph.get_input_jsonschema()["properties"]  # Studio's input: {"message": "..."}


def test_the_claim_graph_is_registered_and_runs_without_a_context(make_deps: Any) -> None:
    """Studio's claim graph: every node of the pipeline, and a run that brings no context gets the process's
    dependencies (here the scripted model on the tiny corpus)."""
    from agent import studio
    from agent.graph import NODE_NAMES
    from tests.conftest import direction_rules

    spec = json.loads((REPO / "langgraph.json").read_text())
    assert spec["graphs"]["claim"] == "./agent/studio.py:graph"
    assert set(NODE_NAMES) <= set(studio.graph.get_graph().nodes)
    assert "claim" in studio.graph.get_input_jsonschema()["properties"]  # Studio's input: {"claim": "..."}
    claim = "The MMR vaccine causes autism."
    deps = make_deps([*direction_rules(claim, supports=False), {"reply": "No link was found [1]."}],
                     {"not associated": "contradicts", "no relationship": "contradicts"})
    loaded: list[int] = []

    def process_deps() -> Any:
        loaded.append(1)
        return deps

    graph = studio.build_graph(default_deps=process_deps)
    state = graph.invoke({"claim": claim})  # no context, as Studio runs it
    assert state["verdict"].label and state["answer"] and loaded
    asked = len(loaded)
    graph.invoke({"claim": claim}, context=deps)  # a run that brings its context uses it
    assert len(loaded) == asked
