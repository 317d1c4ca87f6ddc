"""Verify (Verif.ai; attribution as in FRSC): each answer sentence against the sentences it cites, by the
independent sentence verifier and, while the LLM works, its reading of direction (agent.answer.checks)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.answer.checks import verified
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps


@timed("verify")
def verify(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    # after an LLM failure earlier in this check the verifier's reading stands
    read, usage, notes = verified(
        state.get("sentences", []),
        state.get("evidence", []),
        runtime.context,
        state.get("claim", ""),
        llm_ok=not state.get("llm_error"),
    )
    return {"sentences": read, "usage": usage, "notes": notes}
