"""The exact source sentences behind one answer sentence of the thread's last check, with their contexts. No LLM."""

from __future__ import annotations

from typing import Any

from agent.followup.state import ThreadState
from agent.result import CheckResult


def sources_behind(result: CheckResult, k: int) -> dict[str, Any]:
    """Reply for "sources behind sentence k" (1-based); `error` says why when k names no sentence."""
    sentences = result.sentences
    if not 1 <= k <= len(sentences):
        return {
            "kind": "sources",
            "sentence": k,
            "error": f"the last answer has {len(sentences)} sentence(s); ask about sentence 1 to {len(sentences)}",
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
    return {"reply": sources_behind(CheckResult.model_validate(state["results"][-1]), state["sentence"])}
