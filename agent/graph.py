"""The claim-checking graph. This is the only place where edges live.

claim_queries -> retrieve -> fuse -> rerank -> select_evidence -> context -> assess -> verdict
    verdict (provisional, awaiting judgement) -> judge_sources -> verdict
    verdict (provisional, awaiting questions) -> decompose -> retrieve ... -> verdict (final)
    verdict (final, resting on too little) -> reformulate -> retrieve ... -> verdict (at most SEARCH_ROUNDS times)
    verdict (final) -> answer -> verify -> correct

Nothing waits for the LLM that does not need it: the claim and its rule-made negation are searched and judged at
once (the verifier's gate and labels), so the sources and a provisional verdict are there within a second; then the
LLM reads which way each source points (the claim or its opposite) and the verdict is judged again; then, when
LLM_QUESTIONS asks for them, the LLM writes search questions, which are searched (retrieve searches only queries it
has not searched) and judged with the first lists, and the final verdict replaces the provisional one. When the LLM
gives no new question, the verdict is made final as it stands. A final verdict that rests on too little (no
confident source, or one source alone) sends the search round again with the LLM's reformulated queries, as a
researcher would; when the LLM sees no better query, the verdict stands. The verdict comes from the verifier's local
labels, before the answer, so the generator is told the verdict and never decides it; the answer's sentences are
then checked against what they cite, and those their sources do not support are re-cited to the source they repeat,
rewritten, replaced by the quoted finding or dropped.

The graph is stated below as it runs: ``NODES`` (in the order a check meets them), ``EDGES`` (taken every time) and
``BRANCHES`` (a router and where each of its answers leads). `build_graph(first, last)` compiles a span of it with
the same edges (``span``): the stages of agent.stages (retrieval, judgement, answer), the evals' replays and the
follow-ups run such spans. The loops back to retrieve exist only in a span holding retrieve and the node that loops
(decompose, reformulate).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agent.nodes.answer import answer
from agent.nodes.assess import assess
from agent.nodes.claim_queries import claim_queries
from agent.nodes.context import context
from agent.nodes.correct import correct
from agent.nodes.decompose import decompose
from agent.nodes.fuse import fuse
from agent.nodes.judge_sources import judge_sources
from agent.nodes.reformulate import reformulate
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.select_evidence import select_evidence
from agent.nodes.verdict import verdict
from agent.nodes.verify import verify
from agent.state import ClaimState, Deps, deps_or
from tools.text.i18n import english

Node = Callable[[ClaimState, Runtime[Deps]], dict[str, Any]]
# every node, in the order a check meets them (the order the chat lists its steps in)
NODES: dict[str, Node] = {
    "claim_queries": claim_queries,
    "retrieve": retrieve,
    "fuse": fuse,
    "rerank": rerank,
    "select_evidence": select_evidence,
    "context": context,
    "assess": assess,
    "verdict": verdict,
    "judge_sources": judge_sources,
    "decompose": decompose,
    "reformulate": reformulate,
    "answer": answer,
    "verify": verify,
    "correct": correct,
}
NODE_NAMES = list(NODES)
# the edges every run takes
EDGES: list[tuple[str, str]] = [
    (START, "claim_queries"),
    ("claim_queries", "retrieve"),
    ("retrieve", "fuse"),
    ("fuse", "rerank"),
    ("rerank", "select_evidence"),
    ("select_evidence", "context"),
    ("context", "assess"),
    ("assess", "verdict"),
    ("judge_sources", "verdict"),
    ("answer", "verify"),
    ("verify", "correct"),
    ("correct", END),
]
# the nodes that choose where to go: the router, and where each of its answers leads
BRANCHES: dict[str, tuple[Callable[[ClaimState], str], dict[str, str]]] = {}


def after_verdict(state: ClaimState) -> str:
    """A provisional verdict asks for what it awaits (the LLM's reading of direction, or its search questions); a
    final one that rests on too little asks for a reformulated search; any other goes on to the answer."""
    v = state.get("verdict")
    if v is not None and v.provisional:
        return "judge_sources" if v.awaiting == "judgement" else "decompose"
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


BRANCHES.update(
    {
        "verdict": (
            after_verdict,
            {
                "judge_sources": "judge_sources",
                "decompose": "decompose",
                "reformulate": "reformulate",
                "final": "answer",
            },
        ),
        "decompose": (after_decompose, {"retrieve": "retrieve", "verdict": "verdict"}),
        "reformulate": (after_reformulate, {"retrieve": "retrieve", "final": "answer"}),
    }
)


def targets(name: str) -> set[str]:
    """Where ``name`` can go next."""
    if name in BRANCHES:
        return set(BRANCHES[name][1].values())
    return {b for a, b in EDGES if a == name}


def span(first: str, last: str) -> list[str]:
    """The nodes of the span from ``first`` to ``last``: those between them in the order of ``NODES``, less a node
    that goes back to an earlier node (a loop, or the LLM's direction back to the verdict) outside the span: in a span
    without retrieve a verdict cannot send the search round again. Raises ValueError for a name that is not a node
    or a span that runs backwards."""
    start, end = NODE_NAMES.index(first), NODE_NAMES.index(last)
    if start > end:
        raise ValueError(f"{first!r} comes after {last!r} in the pipeline")
    names = NODE_NAMES[start : end + 1]
    if len(names) == 1:
        return names
    order = {n: k for k, n in enumerate(NODE_NAMES)}
    return [n for n in names if all(b in names for b in targets(n) if b != END and order[b] < order[n])]


def with_default_deps(node: Callable[..., dict[str, Any]], default: Callable[[], Deps]) -> Callable[..., Any]:
    """The node, given ``default()`` as its dependencies when a run brings none (LangGraph Studio)."""

    def run(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
        return node(state, runtime.override(context=deps_or(runtime.context, default)))

    return run


def build_graph(
    checkpointer: Any = None,
    first: str = "claim_queries",
    last: str = "correct",
    default_deps: Callable[[], Deps] | None = None,
) -> Any:
    """The span from node `first` to node `last` (both included), compiled with the edges above: an edge to a node
    outside the span ends the run, and a route to one goes where the router's "final" route goes (a provisional
    verdict in a span without the node it awaits goes on as if final). With ``default_deps``, a run that brings no
    context gets those dependencies. Raises ValueError for a name that is not a node or a span that runs backwards."""
    names = span(first, last)
    builder = StateGraph(ClaimState, context_schema=Deps)
    for name in names:
        node = NODES[name]
        # each node speaks English, whatever the view around it speaks: its words go to the LLM and the JSON
        builder.add_node(name, english(with_default_deps(node, default_deps) if default_deps else node))

    def inside(target: str) -> str:
        return target if target in names else END

    builder.add_edge(START, names[0])
    for name in names:
        if name in BRANCHES and len(names) > 1:
            router, routes = BRANCHES[name]
            final = inside(routes.get("final", END))
            builder.add_conditional_edges(
                name, router, {k: inside(v) if v in names else final for k, v in routes.items()}
            )
        else:
            for a, b in EDGES:
                if a == name:
                    builder.add_edge(name, inside(b))
            if name in BRANCHES:  # a span of one routing node
                builder.add_edge(name, END)
    name = "claimtrace" if (first, last) == (NODE_NAMES[0], NODE_NAMES[-1]) else f"claimtrace:{first}-{last}"
    return builder.compile(checkpointer=checkpointer, name=name)
