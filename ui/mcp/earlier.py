"""The MCP server's `find_earlier_checks` tool (agent.earlier): the kept checks of the same claim, of its opposite, or
of related claims, with their verdicts, dates and threads; and the recording that makes each check the server keeps
findable by later ones. The server is run by whoever holds the thread store, so it sees every kept check."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

from agent.earlier.matches import STORE_ERRORS, find_earlier, matching_llm, record
from agent.settings.app import Settings

RECORDED_BY = "the MCP server"  # who the kept check names as having checked it


def add_earlier_tool(mcp: FastMCP, settings: Settings) -> None:
    @mcp.tool()
    async def find_earlier_checks(claim: str) -> dict[str, Any]:
        """Find checks kept before of this claim, of its opposite, or of related claims, without checking anything.
        Returns `earlier`: each with `relation` ("same": the same claim in other words; "opposite": it states the
        claim's opposite, and `verdict_for_this_claim` is its verdict mirrored, refuted becoming supported;
        "related": same topic, another claim), `claim` (the earlier claim's words), `verdict`, `papers_read`,
        `checked_at`, `checked_by` and `thread_id` (for export_check)."""
        from agent.service import InputError, validate_claim
        from tools.models.embedder import get_embedder
        from tools.models.verifier import get_verifier

        try:
            text, _ = validate_claim(claim, settings.answer.max_claim_chars)
        except InputError as e:
            raise ToolError(f"I cannot look this up: {e}") from e
        if not settings.stores.earlier_checks:
            raise ToolError("earlier checks are turned off on this server (EARLIER_CHECKS=false)")
        found = await asyncio.to_thread(find_earlier, settings, get_embedder(), get_verifier(), text,
                                        llm=matching_llm(settings))
        return {"claim": text,
                "earlier": [e.model_dump() | {"verdict_for_this_claim": e.verdict_for_new_claim()} for e in found]}


def record_kept(settings: Settings, result: dict[str, Any], thread_id: str) -> None:
    """Make a check the server kept findable by later claims; a store that cannot take it costs a note."""
    if settings.stores.earlier_checks:
        from tools.models.embedder import get_embedder

        try:
            record(settings, get_embedder(), result, thread_id, RECORDED_BY)
        except STORE_ERRORS as e:
            result["notes"].append(f"mcp: this check cannot be found by later ones ({' '.join(str(e).split())})")
