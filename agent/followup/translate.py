"""After a check's answer, for a claim that came in another language: the answer's sentences translated into it
(agent.service.translate_result), a node of its own after `check`, so the answer is kept and shown, in the English
it was written and checked in, before the LLM translates a word. The check is kept again with the translations. An
English claim, or a check without an answer sentence, takes no step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.followup.deps import deps_of
from agent.followup.state import ThreadState
from agent.result import CheckResult
from agent.service import translate_result


def translate(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    results = state.get("results", [])
    if state.get("action") != "check" or not results:
        return {}
    result = CheckResult.model_validate(results[-1])
    amended = translate_result(result, deps_of(runtime))
    return {"results": [amended.model_dump(mode="json")]} if amended is not result else {}
