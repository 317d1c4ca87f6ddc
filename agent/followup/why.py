"""How the last check's verdict was reached (agent.judge.reckoning), for "why?", "how sure?" and "what would change
it?". No LLM: every figure is the check's own."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.followup.deps import deps_of
from agent.followup.state import ThreadState, current
from agent.judge.reckoning import reckoning
from agent.result import CheckResult


def why(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    result = CheckResult.model_validate(current(state))
    return {"reply": reckoning(result, deps_of(runtime).settings.judge.min_confidence)}
