"""The exact source sentences behind one answer sentence of the thread's last check, with their neighbouring
sentences. No LLM."""

from __future__ import annotations

from typing import Any

from agent.followup.state import ThreadState, current
from agent.result import CheckResult

NO_ANSWER_YET = "there is no answer in this thread yet; send a claim to check first, then ask about its sentences"


def _which(count: int) -> str:
    return f"ask about sentence 1 to {count}" if count else "it has no sentence to ask about"


def sources_behind(result: CheckResult, k: int) -> dict[str, Any]:
    """Reply for "sources behind sentence k" (1-based); `error` says why when k names no sentence."""
    sentences = result.sentences
    if not 1 <= k <= len(sentences):
        return {
            "kind": "sources",
            "sentence": k,
            "error": f"there is no sentence {k}: the last answer has {len(sentences)} sentence(s); "
            + _which(len(sentences)),
        }
    s = sentences[k - 1]
    return {
        "kind": "sources",
        "sentence": k,
        "text": s.text,
        "citations": s.citations,
        "status": s.status,
        "sources": [src.model_dump(mode="json") for src in result.cited_sources(s)],
    }


def sources(state: ThreadState) -> dict[str, Any]:
    """The reply to a sources request; before any check, or for a sentence named by no number, it says why none."""
    ref = state["sentence"]
    if (held := current(state)) is None:
        return {"reply": {"kind": "sources", "sentence": ref, "error": NO_ANSWER_YET}}
    result = CheckResult.model_validate(held)
    if isinstance(ref, str):
        count = len(result.sentences)
        return {
            "reply": {"kind": "sources", "sentence": ref, "error": f"“{ref}” is not a sentence number; {_which(count)}"}
        }
    return {"reply": sources_behind(result, ref)}
