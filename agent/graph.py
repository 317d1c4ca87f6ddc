"""The claim-checking graph. This is the only place where edges live.

claim_queries -> retrieve -> fuse -> rerank -> select_evidence -> context -> assess -> verdict
    verdict (provisional, awaiting direction) -> direction -> verdict
    verdict (provisional, awaiting questions) -> decompose -> retrieve ... -> verdict (final)
    verdict (final, resting on too little) -> reformulate -> retrieve ... -> verdict (at most SEARCH_ROUNDS times)
    verdict (final) -> answer -> verify -> correct

Nothing waits for the LLM that does not need it: the claim and its rule-made negation are searched and judged at
once (the verifier's gate and labels), so the sources and a provisional verdict are there within a second; then the
LLM reads which way each source points (the claim or its opposite) and the verdict is judged again; then, when
LLM_QUESTIONS asks for them, the LLM writes search questions,
which are searched (retrieve searches only queries it has not searched) and judged with the first lists, and the
final verdict replaces the provisional one. When the LLM gives no new question, the verdict is made final as it
stands. A final verdict that rests on too little (no confident source, or one source alone) sends the search round
again with the LLM's reformulated queries, as a researcher would; when the LLM sees no better query, the verdict
stands. The verdict comes from the verifier's local labels, before the answer, so the generator is told the verdict
and never decides it; the answer's sentences are then checked against what they cite, and those their sources do
not support are re-cited to the source they repeat, rewritten, replaced by the quoted finding or dropped.

`build_graph(first, last)` compiles any contiguous span of the pipeline with the same edges: the stages of
agent.stages (retrieval, judgement, answer), the evals' replays and the follow-ups run such spans. The loops back to
retrieve exist only in a span holding retrieve and the node that loops (decompose, reformulate).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agent.nodes.answer import answer
from agent.nodes.assess import assess
from agent.nodes.claim_queries import claim_queries
from agent.nodes.context import context
from agent.nodes.correct import correct
from agent.nodes.decompose import decompose
from agent.nodes.direction import direction
from agent.nodes.fuse import fuse
from agent.nodes.reformulate import reformulate
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.select_evidence import select_evidence
from agent.nodes.verdict import verdict
from agent.nodes.verify import verify
from agent.state import ClaimState, Deps

PIPELINE = [
    ("claim_queries", claim_queries),
    ("retrieve", retrieve),
    ("fuse", fuse),
    ("rerank", rerank),
    ("select_evidence", select_evidence),
    ("context", context),
    ("assess", assess),
    ("verdict", verdict),
    ("direction", direction),
    ("decompose", decompose),
    ("reformulate", reformulate),
    ("answer", answer),
    ("verify", verify),
    ("correct", correct),
]
NODE_NAMES = [name for name, _ in PIPELINE]


LOOPS = ("decompose", "reformulate")  # the nodes after verdict that send the search round again
ROUTED = ("direction", *LOOPS)  # the nodes the verdict routes to; direction goes back to the verdict


def after_verdict(state: ClaimState) -> str:
    """A provisional verdict asks for what it awaits (the LLM's reading of direction, or its search questions); a
    final one that rests on too little asks for a reformulated search; any other goes on to the answer."""
    v = state.get("verdict")
    if v is not None and v.provisional:
        return "direction" if v.awaiting == "direction" else "decompose"
    return "reformulate" if state.get("search_again") else "final"


def unsearched(state: ClaimState) -> bool:
    searched = set(state.get("searched", []))
    return any(q.text not in searched for q in state.get("queries", []))


def after_decompose(state: ClaimState) -> str:
    """New queries are searched; without any, the verdict is made final as it stands."""
    return "retrieve" if unsearched(state) else "verdict"


def after_reformulate(state: ClaimState) -> str:
    """New queries are searched; without any, the verdict stands and the answer follows."""
    return "retrieve" if unsearched(state) else "final"


def with_default_deps(node: Callable[..., dict[str, Any]], default: Callable[[], Deps]) -> Callable[..., Any]:
    """The node, given ``default()`` as its dependencies when a run brings none (LangGraph Studio)."""

    def run(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
        return node(state, runtime if isinstance(runtime.context, Deps) else runtime.override(context=default()))

    return run


def build_graph(
    checkpointer: Any = None,
    first: str = "claim_queries",
    last: str = "correct",
    default_deps: Callable[[], Deps] | None = None,
) -> Any:
    """The pipeline from node `first` to node `last` (both included), compiled. With ``default_deps``, a run that
    brings no context gets those dependencies. Raises ValueError for a name that is not a node or a span that runs
    backwards."""
    start, end = NODE_NAMES.index(first), NODE_NAMES.index(last)
    if start > end:
        raise ValueError(f"{first!r} comes after {last!r} in the pipeline")
    names = NODE_NAMES[start : end + 1]
    if len(names) > 1:  # without retrieve (or verdict) in the span a loop's queries would never be searched
        names = [n for n in names if n not in LOOPS or {"retrieve", "verdict"} <= set(names)]
        names = [n for n in names if n != "direction" or "verdict" in names]
    routed = [n for n in ROUTED if n in names and len(names) > 1]
    builder = StateGraph(ClaimState, context_schema=Deps)
    for name, node in PIPELINE:
        if name in names:
            builder.add_node(name, with_default_deps(node, default_deps) if default_deps else node)
    following = dict(zip(names, names[1:], strict=False))
    builder.add_edge(START, names[0])
    for name in names:
        if not (routed and name in ("verdict", *routed)):
            builder.add_edge(name, following.get(name, END))
    if routed:
        final = following.get(routed[-1], END)
        # a provisional verdict in a span without the node it awaits goes on as if final
        routes: dict[Hashable, str] = {"final": final, **{n: n for n in ROUTED}}
        for n in ROUTED:
            if n not in routed:
                routes[n] = final
        builder.add_conditional_edges("verdict", after_verdict, routes)
        if "direction" in routed:
            builder.add_edge("direction", "verdict")
        if "decompose" in routed:
            builder.add_conditional_edges("decompose", after_decompose, {"retrieve": "retrieve", "verdict": "verdict"})
        if "reformulate" in routed:
            builder.add_conditional_edges("reformulate", after_reformulate, {"retrieve": "retrieve", "final": final})
    name = "claimtrace" if (first, last) == (NODE_NAMES[0], NODE_NAMES[-1]) else f"claimtrace:{first}-{last}"
    return builder.compile(checkpointer=checkpointer, name=name)
