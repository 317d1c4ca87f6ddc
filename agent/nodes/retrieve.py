"""Retrieve (hybrid search as in Verif.ai, title-prepended sentences as in the semantic-search study): every
search question through every retrieval tool, once: a second pass (after the LLM's questions) searches only the new
questions and keeps the lists of the first.

Live tools (Europe PMC, PubMed, OpenAlex, Semantic Scholar; tools.live) search the literature first, for the
sources the settings select, concurrently and within a time budget; the abstracts they fetch are added to the index.
Then the local tools (BM25, dense sentences) search the index, fetched abstracts included: a fetched paper competes
on the same lists as the corpus and gains one more list (its source's ranking) in the fusion, like a document that
several retrievers find. Follow-ups and later checks find fetched abstracts locally.

The user's library (`claimtrace add`) lives in the same index: `local` and `library` choose which of its documents
the local tools rank (tools.index.library_search).
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Query
from tools.index.dense_store import DenseStoreError
from tools.index.search import make_search_tools
from tools.text.i18n import written

log = logging.getLogger(__name__)


def _live(new: list[Query], deps: Deps, local: bool, sources: list[Any]) -> tuple[dict[str, list[str]], list[str]]:
    """Ranked lists of the live sources and their notes; fetched abstracts are added to the index."""
    from tools.live.retrieval import live_queries, run_live, search_live

    settings = deps.settings
    queries = live_queries([(q.text, q.kind) for q in new], settings.live.queries)
    find = getattr(deps.index, "find_doc", None)
    try:
        search = search_live(sources, queries, settings.live, settings.stores.live_cache_dir, find, local=local)
        future = run_live(search)
        outcome = future.result(timeout=settings.live.budget + 30)
    except Exception as e:  # search_live reports source failures as notes; this is a bug or a hung thread
        log.warning("live search failed", exc_info=e)
        return {}, [f"live literature search failed ({type(e).__name__}); answered from the other sources"]
    try:
        if outcome.docs:
            deps.index.add_abstracts(list(outcome.docs.values()))
    except Exception as e:  # a failing store costs the live results, never the check
        log.warning("adding fetched abstracts to the index failed", exc_info=e)
        return {}, [*outcome.notes, f"fetched abstracts could not be added to the index ({type(e).__name__})"]
    # an abstract the user removed from the index is not taken in again, so the lists leave it out
    ranked = {key: [i for i in ids if i in deps.index.docs] for key, ids in outcome.ranked.items()}
    return ranked, outcome.notes


@timed("retrieve")
def retrieve(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    """Searches the queries not searched yet (the claim queries first, then the LLM's questions) and adds their
    ranked lists to those already found."""
    from tools.index.library_search import scoped
    from tools.live.config import AUTO
    from tools.live.sources import select_sources

    deps = runtime.context
    searched = list(state.get("searched", []))
    new = [q for q in state["queries"] if q.text not in searched]
    selection = select_sources(deps.settings.live)
    explicit = deps.settings.live.sources != AUTO
    searches_index = selection.local or selection.library
    index: Any = None  # the index as the local tools search it: limited to the chosen documents
    library_notes: list[str] = []
    if searches_index:
        index, library_notes = scoped(deps.index, selection.local, selection.library, explicit)
    notes = [] if searched else [*selection.notes, *library_notes]  # said once per check
    ranked: dict[str, list[str]] = dict(state.get("ranked_lists", {}))
    if selection.live and new:
        live_ranked, live_notes = _live(new, deps, searches_index, selection.live)
        ranked.update(live_ranked)
        notes.extend(live_notes)
    if index is not None and new:
        texts = [q.text for q in new]
        for tool in make_search_tools(index, deps.settings.retrieval.depth):
            try:
                results = tool.batch([{"query": q} for q in texts])
            except DenseStoreError as e:  # the keyword search still answers; the evidence is embedded here
                notes.append(written("{error}: this search used keywords (BM25) only", error=e))
                continue
            for query, hits in zip(texts, results, strict=True):
                ranked[f"{tool.name}|{query}"] = [h["doc_id"] for h in hits]
    return {"ranked_lists": ranked, "searched": searched + [q.text for q in new], "notes": notes}
