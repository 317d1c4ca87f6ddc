"""How the last check's verdict was reached (agent.judge.reckoning), for "why?", "how sure?" and "what would change
it?". No LLM: every figure is the check's own; a paper removed from the library since says so."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.followup.deps import deps_of
from agent.followup.state import ThreadState, current
from agent.judge.reckoning import reckoning
from agent.result import CheckResult
from tools.index.live_docs import removed_days


def why(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    """The reckoning of the thread's latest check; a paper removed from the index since is marked with the day it
    left (the removal log of the configured index), and the check's figures stay its own."""
    result = CheckResult.model_validate(current(state))
    settings = deps_of(runtime).settings
    removed = removed_days(settings.stores.index_dir)
    return {"reply": reckoning(result, settings.judge.min_confidence, removed)}
