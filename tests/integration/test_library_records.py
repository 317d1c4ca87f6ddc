"""The MCP `library` tool through the SDK's own client over stdio (`claimtrace mcp` as a subprocess), on a temporary
DATA_DIR with the tiny corpus indexed and a paper of the user's library that a kept check cites: the tool lists the
documents as `claimtrace library list --json` does, says what a removal would take without `confirm` and takes
nothing, refuses an unknown id with one message, and removes with `confirm`. The check that cited the paper keeps
its record: `export_check` and `claimtrace export` still hold its sentences, marked "removed from the library on
<day>", and `sources_for_sentence` marks it the same way."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.integration.test_cli import run
from tests.integration.test_library_manage_cli import CLAIM, PAPER, env, listed  # noqa: F401
from tests.integration.test_mcp import error_text, payload
from tests.library_files import paper_pdf
from ui.shared.untrusted import md

REPO = Path(__file__).resolve().parents[2]


async def library_session(session: ClientSession, thread: str) -> dict[str, Any]:
    """Every use of the library tool, in the order a user would go; returns what the confirmed removal gave."""
    await session.initialize()
    assert "library" in {t.name for t in (await session.list_tools()).tools}
    docs = {d["doc_id"]: d for d in payload(await session.call_tool("library", {}))["documents"]}
    assert docs[PAPER]["source"] == "library" and docs[PAPER]["cited_by"] == [thread]

    preview = payload(await session.call_tool("library", {"remove": [PAPER]}))
    assert [d["doc_id"] for d in preview["would_remove"]] == [PAPER] and preview["removed"] == []
    assert "nothing was removed" in preview["message"] and "1 cited by kept checks" in preview["message"]
    assert PAPER in {d["doc_id"] for d in payload(await session.call_tool("library", {}))["documents"]}

    unknown = error_text(await session.call_tool("library", {"remove": [PAPER, "lib:nope"], "confirm": True}))
    assert "no document 'lib:nope'" in unknown and "nothing was removed" in unknown
    assert "confirm needs remove" in error_text(await session.call_tool("library", {"confirm": True}))
    assert "name the documents to remove" in error_text(await session.call_tool("library", {"remove": []}))
    assert PAPER in {d["doc_id"] for d in payload(await session.call_tool("library", {}))["documents"]}

    done = payload(await session.call_tool("library", {"remove": [PAPER], "confirm": True}))
    assert [r["doc_id"] for r in done["removed"]] == [PAPER]
    assert PAPER not in {d["doc_id"] for d in payload(await session.call_tool("library", {}))["documents"]}
    day = str(done["removed"][0]["removed_at"])[:10]
    report = payload(await session.call_tool("export_check", {"thread_id": thread, "format": "md"}))
    assert md(f"removed from the library on {day}") in report  # Markdown, escaped as every text it shows
    behind = payload(await session.call_tool("sources_for_sentence", {"thread_id": thread, "sentence": 1}))
    assert {s["doc_id"]: s["removed"] for s in behind["sources"]} == {PAPER: f"removed from the library on {day}"}
    return dict(done)


def test_the_library_tool_lists_previews_and_removes_and_past_checks_keep_their_record(
    env: dict[str, str], tmp_path: Path  # noqa: F811
):
    paper_pdf(tmp_path)
    assert run(["add", str(tmp_path)], env).returncode == 0
    ask = run(["ask", CLAIM, "--sources", "library", "--json"], env)
    assert ask.returncode == 0, ask.stderr
    checked = json.loads(ask.stdout)
    cited = [s for s in checked["sources"] if s["doc_id"] == PAPER]
    assert cited and {s["n"] for s in cited} == set(checked["sentences"][0]["citations"])  # sentence 1 cites it
    thread = ask.stderr.split("Kept as thread ")[1].split()[0]
    params = StdioServerParameters(command=sys.executable, args=["-m", "ui.terminal.cli", "mcp"], env=env,
                                   cwd=str(REPO))

    async def main() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await library_session(session, thread)

    done = asyncio.run(asyncio.wait_for(main(), timeout=600))
    day = str(done["removed"][0]["removed_at"])[:10]
    assert PAPER not in listed(env)

    exported = run(["export", thread, "--format", "json"], env)
    assert exported.returncode == 0, exported.stderr
    data = json.loads(exported.stdout)
    assert data["removed_from_library"] == {PAPER: day}
    assert [s for s in data["sources"] if s["doc_id"] == PAPER] == cited  # its sentences stay as the check kept them
    bib = run(["export", thread, "--format", "bib"], env)
    assert f"removed from the library on {day}" in bib.stdout
