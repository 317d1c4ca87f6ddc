"""A new evidence check: the claim pipeline (agent.graph) run inside this node, so its node updates stream to the
caller as a subgraph; the result is kept in the thread as a `CheckResult` dump."""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

from langgraph.runtime import Runtime

from agent.followup.deps import deps_of
from agent.followup.state import ThreadState
from agent.graph import build_graph
from agent.provenance import run_info
from agent.result import CheckResult


@lru_cache(maxsize=1)
def claim_graph() -> Any:
    """Compiled once; never checkpointed on its own (the thread keeps the result)."""
    return build_graph(checkpointer=False)


def check(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    deps = deps_of(runtime)
    run = run_info(deps.settings, deps.llm)
    claim_state = claim_graph().invoke({"claim": state["query"]}, context=deps)
    claim_state["timings"] = {**claim_state.get("timings", {}), "total": round(time.perf_counter() - t0, 3)}
    language = state.get("language") or "en"
    translated = language != "en" and state["query"] != state["message"]
    result = CheckResult.from_state(claim_state, run).model_copy(update={
        "earlier": state.get("earlier") or [], "language": language, "asked": state["message"] if translated else ""})
    if state.get("translation_note"):
        result.notes.append(f"translate: {state['translation_note']}")
    return {
        "results": [result.model_dump(mode="json")],
        "focus": -1,  # follow-ups are about the new check
        "reply": {"kind": "check", "claim": result.claim},
    }
