"""The claim graph as LangGraph Studio and `langgraph dev` load it (langgraph.json): the whole check, node by node,
with the process's dependencies (index, verifiers, LLM from the settings) when a run brings none. Input:
``{"claim": "The MMR vaccine causes autism."}``."""

from __future__ import annotations

from agent.followup.deps import process_deps
from agent.graph import build_graph

graph = build_graph(default_deps=process_deps)
