"""The claim-checking graph. This is the only place where edges live.

decompose -> retrieve -> fuse -> rerank -> select_evidence -> context -> assess -> verdict -> answer -> verify
    -> correct

The verdict comes from the verifier's local labels, before the answer, so the generator is told the verdict and
never decides it; the answer's sentences are then checked against what they cite, and those their sources do not
support are re-cited to the source they repeat, rewritten, replaced by the quoted finding or dropped.

`build_graph(first, last)` compiles any contiguous span of the pipeline with the same edges: the stages of
agent.stages (retrieval, judgement, answer), the evals' replays and the follow-ups run such spans.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.nodes.answer import answer
from agent.nodes.assess import assess
from agent.nodes.context import context
from agent.nodes.correct import correct
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
    ("correct", correct),
]
NODE_NAMES = [name for name, _ in PIPELINE]


def build_graph(checkpointer: Any = None, first: str = "decompose", last: str = "correct") -> Any:
    """The pipeline from node `first` to node `last` (both included), compiled. Raises ValueError for a name
    that is not a node or a span that runs backwards."""
    start, end = NODE_NAMES.index(first), NODE_NAMES.index(last)
    if start > end:
        raise ValueError(f"{first!r} comes after {last!r} in the pipeline")
    span = PIPELINE[start : end + 1]
    builder = StateGraph(ClaimState, context_schema=Deps)
    for name, node in span:
        builder.add_node(name, node)
    builder.add_edge(START, span[0][0])
    for (a, _), (b, _) in zip(span, span[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(span[-1][0], END)
    name = "claimtrace" if (first, last) == (NODE_NAMES[0], NODE_NAMES[-1]) else f"claimtrace:{first}-{last}"
    return builder.compile(checkpointer=checkpointer, name=name)
