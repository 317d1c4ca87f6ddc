"""The claim-checking graph. This is the only place where edges live.

decompose -> retrieve -> fuse -> rerank -> select_evidence -> context -> assess -> verdict -> answer -> verify

The verdict comes from the verifier's local labels, before the answer, so the generator is told the verdict and
never decides it; the answer's sentences are then checked against what they cite.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.nodes.answer import answer
from agent.nodes.assess import assess
from agent.nodes.context import context
from agent.nodes.decompose import decompose
from agent.nodes.fuse import fuse
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.select_evidence import select_evidence
from agent.nodes.verdict import verdict
from agent.nodes.verify import verify
from agent.state import ClaimState, Deps

PIPELINE = [
    ("decompose", decompose),
    ("retrieve", retrieve),
    ("fuse", fuse),
    ("rerank", rerank),
    ("select_evidence", select_evidence),
    ("context", context),
    ("assess", assess),
    ("verdict", verdict),
    ("answer", answer),
    ("verify", verify),
]


def build_graph(checkpointer: Any = None) -> Any:
    builder = StateGraph(ClaimState, context_schema=Deps)
    for name, node in PIPELINE:
        builder.add_node(name, node)
    builder.add_edge(START, PIPELINE[0][0])
    for (a, _), (b, _) in zip(PIPELINE, PIPELINE[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(PIPELINE[-1][0], END)
    return builder.compile(checkpointer=checkpointer, name="claimtrace")
