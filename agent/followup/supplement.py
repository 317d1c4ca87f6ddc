"""After a check's answer, the generated summary of each paper it shows (agent.answer.supplement): a node of its own
after `check`, so the verdict and the answer are kept in the thread, and shown, before the LLM writes a word of
summary. Each paper's summary is streamed as it is written ({"supplement": {"result": id, "paper": n,
"text": ..., "note": ...}}), and the check is kept again with them. An LLM that fails stops the writing at its first
failure, with a note. Off (GENERATED_CONTEXT=false), or for a check without sources, it does nothing."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.answer.supplement import Supplement
from agent.followup.deps import deps_of
from agent.followup.state import ThreadState
from agent.result import CheckResult
from agent.service import supplement_result


def supplement(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    results = state.get("results", [])
    if state.get("action") != "check" or not results:
        return {}
    result = CheckResult.model_validate(results[-1])

    def streamed(n: int, written: Supplement) -> None:
        runtime.stream_writer({"supplement": {"result": result.id, "paper": n, "text": written.text,
                                              "note": written.note}})

    amended = supplement_result(result, deps_of(runtime), streamed)
    return {"results": [amended.model_dump(mode="json")]} if amended is not result else {}
