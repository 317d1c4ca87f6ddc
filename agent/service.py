"""Checking one claim end to end: input rules, wiring of the dependencies, and the run itself."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from typing import Any

from agent.graph import build_graph
from agent.settings import Settings
from agent.state import ClaimState, Deps


class InputError(ValueError):
    """The user's input cannot be checked; the message says why."""


def validate_claim(raw: str, max_chars: int) -> tuple[str, list[str]]:
    """The claim, normalised, and notes for the user; raises InputError with one clear sentence."""
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in raw):
        raise InputError("the claim is not valid UTF-8 text")
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in raw):
        raise InputError("the claim contains binary control characters; send plain text")
    claim = " ".join(raw.split())
    if not claim:
        raise InputError("the claim is empty; type a scientific claim such as 'Vitamin D reduces fractures'")
    if len(claim) > max_chars:
        raise InputError(f"the claim is {len(claim)} characters long; the limit is {max_chars}")
    notes: list[str] = []
    letters = [ch for ch in claim if ch.isalpha()]
    if letters and sum(ch.isascii() for ch in letters) / len(letters) < 0.6:
        notes.append("the corpus is in English; a claim in another language may find little evidence")
    return claim, notes


def load_deps(settings: Settings) -> Deps:
    """Index, verifier and LLM for a session. Raises IndexMissingError / LLMUnavailableError."""
    from agent.llm import make_chat_model
    from tools.index import CorpusIndex
    from tools.verifier import get_verifier

    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    return Deps(settings=settings, llm=make_chat_model(settings), index=index, verifier=get_verifier())


def run_claim(
    claim: str, deps: Deps, graph: Any = None, on_update: Callable[[str, dict[str, Any]], None] | None = None
) -> ClaimState:
    """The final state of the claim graph; `CheckResult.from_state` turns it into the result. `on_update(node,
    update)` is called as each node finishes (the CLI shows the verdict before the answer is written)."""
    graph = graph or build_graph()
    t0 = time.perf_counter()
    state: ClaimState = {"claim": claim}
    for mode, data in graph.stream({"claim": claim}, context=deps, stream_mode=["updates", "values"]):
        if mode == "values":
            state = data
        elif on_update is not None:
            for node, update in data.items():
                on_update(node, update)
    state["timings"] = {**state.get("timings", {}), "total": round(time.perf_counter() - t0, 3)}
    return state
