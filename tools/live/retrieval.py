"""Live retrieval for one check: every selected source is a LangChain tool (the docstring is the tool spec); all
(source, query) searches run concurrently under one time budget; results are merged across sources (DOI, then
PMID) and returned as ranked doc-id lists keyed "<source>|<query>", like the local tools' lists.

A source that fails adds one note and the others go on; nothing here raises to the caller."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from langchain_core.tools import BaseTool, StructuredTool

from tools.corpus import Abstract, Origin
from tools.live.config import LiveSettings
from tools.live.http import LiveHttp, ResponseCache, RetryPolicy, Sleep, SourceError
from tools.live.merge import Known, merge_results
from tools.live.sources import LiveSource

log = logging.getLogger(__name__)


@dataclass
class LiveOutcome:
    ranked: dict[str, list[str]] = field(default_factory=dict)  # "<source>|<query>" -> doc ids, best first
    docs: dict[str, Abstract] = field(default_factory=dict)  # merged abstracts by doc id
    notes: list[str] = field(default_factory=list)
    requests: int = 0  # network requests made (cache hits excluded)


def make_live_tools(http: LiveHttp, settings: LiveSettings, sources: Sequence[LiveSource]) -> list[BaseTool]:
    """One search tool per live source, bound to one HTTP session (so to one event loop)."""

    def bind(src: LiveSource) -> BaseTool:
        async def search(query: str, k: int = settings.results) -> list[dict[str, Any]]:
            docs = await src.search(http, settings, query, k)
            return [d.model_dump() for d in docs]

        return StructuredTool.from_function(
            coroutine=search,
            name=f"{src.name}_search",
            description=f"Search {src.label} for scientific abstracts matching a query. Returns the abstracts "
            "(title, sentences, year, venue, DOI/PMID, URL, citation count, retraction flag), best first.",
        )

    return [bind(src) for src in sources]


def live_queries(queries: Sequence[tuple[str, str]], n: int) -> list[str]:
    """The `n` (text, kind) queries worth sending out: the claim, its opposite, then the questions."""
    order = {"claim": 0, "opposite": 1}
    ranked = sorted(enumerate(queries), key=lambda p: (order.get(p[1][1], 2), p[0]))
    out: list[str] = []
    for _, (text, _kind) in ranked:
        if text not in out:
            out.append(text)
    return out[: max(0, n)]


def _note(src: LiveSource, failed: list[str], total: int, others: bool) -> str:
    reason = failed[0]
    if len(failed) < total:
        return f"{src.label} answered {total - len(failed)} of {total} searches ({reason} for the rest)."
    rest = "answered from the other sources" if others else "no other source was selected"
    return f"{src.label} unavailable ({reason}); {rest}."


async def search_live(
    sources: Sequence[LiveSource],
    queries: Sequence[str],
    settings: LiveSettings,
    cache_dir: Path,
    known: Known | None = None,
    *,
    local: bool = False,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Sleep = asyncio.sleep,
) -> LiveOutcome:
    """Every query through every source's tool, concurrently, within `settings.budget` seconds; responses are
    cached in `cache_dir`."""
    cache = ResponseCache(cache_dir, settings.cache_hours * 3600)
    policy = RetryPolicy(tries=settings.tries, timeout=settings.timeout, max_wait=settings.max_wait)
    async with httpx.AsyncClient(transport=transport, follow_redirects=True) as client:
        http = LiveHttp(client, cache, policy, sleep=sleep)
        tools = make_live_tools(http, settings, sources)
        jobs: dict[asyncio.Task[Any], tuple[LiveSource, str]] = {}
        for src, tool in zip(sources, tools, strict=True):
            for q in queries:
                jobs[asyncio.create_task(tool.ainvoke({"query": q, "k": settings.results}))] = (src, q)
        done: set[asyncio.Task[Any]] = set()
        if jobs:
            done, pending = await asyncio.wait(jobs, timeout=settings.budget)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    found: list[tuple[str, list[Abstract]]] = []
    failures: dict[str, list[str]] = {}
    for task, (src, q) in jobs.items():
        if task not in done:
            failures.setdefault(src.name, []).append(f"no answer within {settings.budget:g} s")
            continue
        exc = task.exception()
        if exc is None:
            found.append((f"{src.name}|{q}", [Abstract.model_validate(d) for d in task.result()]))
        elif isinstance(exc, SourceError):
            failures.setdefault(src.name, []).append(exc.reason)
        else:  # a bug or an unexpected payload: the source is skipped, the check goes on
            log.warning("%s search failed", src.label, exc_info=exc)
            failures.setdefault(src.name, []).append(f"{type(exc).__name__}")
    ranked, docs = merge_results(found, known)
    for key, ids in ranked.items():  # each abstract keeps the first search that found it
        for doc_id in ids:
            if docs[doc_id].origin is None:
                docs[doc_id] = docs[doc_id].model_copy(update={"origin": Origin(query=key.split("|", 1)[1])})
    answered = {key.split("|", 1)[0] for key, _ in found}
    notes = []
    for src in sources:
        if src.name in failures:
            others = local or bool(answered - {src.name})
            notes.append(_note(src, failures[src.name], len(queries), others))
    return LiveOutcome(ranked=ranked, docs=docs, notes=notes, requests=http.requests)


def run_live(search: Coroutine[Any, Any, LiveOutcome]) -> concurrent.futures.Future[LiveOutcome]:
    """Start a `search_live` coroutine on a thread of its own (with its own event loop, so it works whether or not
    the caller runs inside one); the caller collects the future when it has done its local work."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="claimtrace-live")
    future = pool.submit(asyncio.run, search)
    pool.shutdown(wait=False)
    return future
