"""The MCP `library` tool: the documents the index holds beyond the built corpus (the user's library and the
abstracts fetched from live sources), listed as `claimtrace library list --json` lists them, and taken out of the
index by id.

A removal needs `confirm: true`: without it the tool says what would be removed, and which kept checks cite each
document, and removes nothing, so that an assistant shows the user what it is about to do first. The removal is
the index's one crash-safe removal (tools.index.live_docs); it waits for a running check (the server's one check
slot) and goes through the server's loaded index when a check has loaded it, so later checks no longer find the
documents. Past checks keep their record: their exports and "why?" mark the documents "removed from the library on
<day>"."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

from agent.followup.deps import process_deps
from agent.settings.app import Settings

LISTS_THEM = "the library tool, called without remove, lists them"


def listing(settings: Settings) -> dict[str, Any]:
    """`{documents: [...], notes: [...]}`: each kept document as `claimtrace library list --json` gives it. An
    unreadable thread store costs the `cited_by` lists, with a note. ToolError when there is no index."""
    from agent.store.forget import kept_and_citing
    from tools.index.kept import entry
    from tools.index.manifest import read_manifest

    index_dir = settings.stores.index_dir
    if read_manifest(index_dir) is None:
        raise ToolError(f"no index at {index_dir}: run `claimtrace index` first")
    docs, cited, notes = kept_and_citing(settings)
    return {"documents": [entry(d, cited.get(d.doc_id, [])) for d in docs], "notes": notes}


def chosen(listed: dict[str, Any], ids: list[str]) -> list[dict[str, Any]]:
    """The listed documents `ids` name, once each; ToolError naming the first id that names none (nothing is
    removed then)."""
    if not ids:
        raise ToolError(f"name the documents to remove by their doc_id ({LISTS_THEM})")
    by_id = {d["doc_id"]: d for d in listed["documents"]}
    for doc_id in ids:
        if doc_id not in by_id:
            raise ToolError(f"no document {doc_id!r} in your library or among the fetched abstracts ({LISTS_THEM}); "
                            "nothing was removed")
    return [by_id[i] for i in dict.fromkeys(ids)]


def open_index(settings: Settings) -> Any:
    """The index that later checks of this server search: the loaded one when a check has loaded it, else the
    index on disk (the next load reads it as the removal left it)."""
    if process_deps.cache_info().currsize:
        return process_deps().index
    from tools.index.local import CorpusIndex

    return CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)


def add_library_tool(mcp: FastMCP, settings: Settings, one_at_a_time: asyncio.Semaphore) -> None:
    @mcp.tool()
    async def library(remove: list[str] | None = None, confirm: bool = False) -> dict[str, Any]:
        """The documents the index holds beyond the built corpus: the user's own library and the abstracts fetched
        from live sources, as `documents` (doc_id, title, source, file, query, added_at, and `cited_by`: the
        threads whose kept checks cite it). With `remove` (doc ids) and `confirm: true`, takes those documents out
        of the index, so that no later check finds them, and returns `removed` (doc_id, title, source,
        removed_at). Without `confirm`, returns `would_remove` and removes nothing: show it to the user and ask
        first. Past checks keep the removed papers' sentences, marked "removed from the library on <day>"."""
        listed = await asyncio.to_thread(listing, settings)
        if remove is None:
            if confirm:
                raise ToolError("confirm needs remove: the doc ids of the documents to remove")
            return listed
        docs = chosen(listed, remove)
        if not confirm:
            cited = sum(bool(d["cited_by"]) for d in docs)
            return {"would_remove": docs, "removed": [],
                    "message": f"{len(docs)} document(s) would be removed ({cited} cited by kept checks, which keep "
                               "their record); nothing was removed. Call library again with the same remove and "
                               "confirm: true to remove them."}
        async with one_at_a_time:
            try:
                index = await asyncio.to_thread(open_index, settings)
                gone = await asyncio.to_thread(index.remove_docs, [d["doc_id"] for d in docs])
            except Exception as e:
                raise ToolError(f"the documents could not be removed: {e}") from e
        return {"removed": [r.model_dump() for r in gone], "would_remove": [],
                "message": f"{len(gone)} document(s) removed from the index"}
