"""The exact source sentences behind one answer sentence of the thread's last check, with their contexts. No LLM."""

from __future__ import annotations

from typing import Any

from agent.followup.state import ThreadState


def sources_behind(result: dict[str, Any], k: int) -> dict[str, Any]:
    """Reply for "sources behind sentence k" (1-based); `error` says why when k names no sentence."""
    sentences = result["sentences"]
    if not 1 <= k <= len(sentences):
        return {
            "kind": "sources",
            "sentence": k,
            "error": f"the last answer has {len(sentences)} sentence(s); ask about sentence 1 to {len(sentences)}",
        }
    s = sentences[k - 1]
    by_n = {src["n"]: src for src in result["sources"]}
    return {
        "kind": "sources",
        "sentence": k,
        "text": s["text"],
        "citations": s["citations"],
        "status": s["status"],
        "sources": [by_n[n] for n in s["citations"] if n in by_n],
    }


def sources(state: ThreadState) -> dict[str, Any]:
    return {"reply": sources_behind(state["results"][-1], state["sentence"])}
