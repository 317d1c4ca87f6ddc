"""`claimtrace mcp` driven by the official MCP SDK's own client, as an MCP client would: over stdio (the server
started as a subprocess) and over streamable HTTP on loopback with a bearer token. The scripted LLM and the tiny
corpus's index (tests/integration/test_cli.py's fixtures); a check's progress notifications, every tool, and every
tool with bad input."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

from tests.integration.test_cli import CLAIM, cli_env, indexed_env  # noqa: F401
from tests.ports import free_port
from tests.settings_env import BUILT_MODELS
from tests.unit.test_result import TOP

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"check_claim", "check_text", "sources_for_sentence", "export_check", "list_checks", "library",
         "find_earlier_checks"}
TOKEN = "mcp-test-token-Hx8Qe2"


def payload(result: Any) -> Any:
    """The structured content of a tool result (FastMCP wraps a non-object return as {"result": ...})."""
    assert not result.isError, result.content
    data = result.structuredContent
    return data["result"] if set(data) == {"result"} else data


def error_text(result: Any) -> str:
    assert result.isError, result
    return " ".join(getattr(c, "text", "") for c in result.content)


async def exercise(session: ClientSession, earlier: bool = False) -> None:
    """Every tool, the progress of a check, a resource, and bad input for each tool; ``earlier``: the server matches
    claims to earlier checks (EARLIER_CHECKS=true)."""
    hello = await session.initialize()
    assert (hello.serverInfo.name, hello.serverInfo.version) == ("claimtrace", version("claimtrace"))
    assert {t.name for t in (await session.list_tools()).tools} == TOOLS
    progress: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    checked = payload(await session.call_tool("check_claim", {"claim": CLAIM}, progress_callback=on_progress))
    assert set(checked) == TOP | {"consensus", "thread_id"}  # `ask --json`, and where it is kept
    assert checked["claim"] == CLAIM and checked["verdict"]["label"] and checked["thread_id"]
    messages = [m or "" for _, m in progress]
    assert any(m.startswith("sources found:") for m in messages), messages
    assert any(m.startswith("provisional verdict:") for m in messages), messages
    assert any(m.startswith("judged verdict:") for m in messages) and messages[-1] == "answer checked"
    assert [p for p, _ in progress] == sorted(p for p, _ in progress)  # progress only grows
    thread = checked["thread_id"]

    if earlier:  # the check just kept is found again by its claim, in other case and spacing
        found = payload(await session.call_tool("find_earlier_checks", {"claim": f"  {CLAIM.upper()} "}))
        assert [(e["relation"], e["thread_id"], e["claim"]) for e in found["earlier"]][:1] == [("same", thread, CLAIM)]
        assert found["earlier"][0]["verdict"] == checked["verdict"]["label"]
        assert found["earlier"][0]["checked_by"] == "the MCP server"
    else:
        assert "EARLIER_CHECKS=false" in error_text(await session.call_tool("find_earlier_checks", {"claim": CLAIM}))
    listed = payload(await session.call_tool("list_checks", {}))
    assert listed[0]["thread_id"] == thread and listed[0]["claim"] == CLAIM
    report = payload(await session.call_tool("export_check", {"thread_id": thread, "format": "md"}))
    assert report.startswith("# claimtrace check") and "The MMR vaccine causes autism" in report
    german = payload(await session.call_tool("export_check", {"thread_id": thread, "lang": "de"}))
    assert german.startswith("# claimtrace-Prüfung") and "The MMR vaccine causes autism" in german
    bib = payload(await session.call_tool("export_check", {"thread_id": thread, "format": "bib"}))
    assert bib.count("@article") == len({s["doc_id"] for s in checked["sources"]})
    if checked["sentences"]:
        behind = payload(await session.call_tool("sources_for_sentence", {"thread_id": thread, "sentence": 1}))
        assert behind["sentence"] == 1 and behind["text"] == checked["sentences"][0]["text"]
    resource = await session.read_resource(f"claimtrace://checks/{thread}")  # type: ignore[arg-type]
    assert json.loads(resource.contents[0].text)["claim"] == CLAIM  # type: ignore[union-attr]

    # bad input: a tool error with one clear message each, and the server goes on
    assert "empty" in error_text(await session.call_tool("check_claim", {"claim": "   "}))
    assert "sources: unknown source(s) nowhere" in error_text(
        await session.call_tool("check_claim", {"claim": CLAIM, "sources": "nowhere"})
    )
    assert "english: the claim is already in English" in error_text(
        await session.call_tool("check_claim", {"claim": CLAIM, "english": CLAIM})
    )
    assert "no kept check" in error_text(await session.call_tool("export_check", {"thread_id": "nope"}))
    assert "format" in error_text(await session.call_tool("export_check", {"thread_id": thread, "format": "pdf"}))
    assert "lang: 'xx' is not one of de, en, es, fr, pt" in error_text(
        await session.call_tool("export_check", {"thread_id": thread, "lang": "xx"})
    )
    assert "check must be 1 to 1" in error_text(
        await session.call_tool("export_check", {"thread_id": thread, "check": 5})
    )
    assert "sentence" in error_text(
        await session.call_tool("sources_for_sentence", {"thread_id": thread, "sentence": 99})
    )
    assert "at least 1" in error_text(await session.call_tool("list_checks", {"limit": 0}))
    assert "empty" in error_text(await session.call_tool("check_text", {"text": ""}))
    again = payload(await session.call_tool("list_checks", {"limit": 1}))
    assert len(again) == 1  # still answering


def test_stdio_server_through_the_sdk_client(indexed_env: dict[str, str]):  # noqa: F811
    params = StdioServerParameters(command=sys.executable, args=["-m", "ui.terminal.cli", "mcp"],
                                   env={**indexed_env, "EARLIER_CHECKS": "true"}, cwd=str(REPO))

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await exercise(session, earlier=True)

    asyncio.run(asyncio.wait_for(main(), timeout=600))


def test_an_unreachable_llm_costs_the_reading_not_the_server(indexed_env: dict[str, str]):  # noqa: F811
    """Nothing listens at the LLM's address: each check still ends (its papers listed with the verifier's reading,
    a provisional verdict, a note), and the server answers the next call."""
    env = {**indexed_env, "LLM_PROVIDER": "openai", "LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
           "LLM_MAX_RETRIES": "0"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "ui.terminal.cli", "mcp"], env=env,
                                   cwd=str(REPO))

    async def main() -> list[dict[str, Any]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [dict(payload(await session.call_tool("check_claim", {"claim": CLAIM}))) for _ in range(2)]

    for checked in asyncio.run(asyncio.wait_for(main(), timeout=600)):
        assert any("the LLM is unreachable" in n for n in checked["notes"]), checked["notes"]
        assert checked["answer"].startswith("Not enough evidence so far (provisional)")
        assert checked["silent"] and checked["thread_id"]


def test_http_server_needs_its_token_and_serves_the_sdk_client(indexed_env: dict[str, str]):  # noqa: F811
    port = free_port()
    env = {**indexed_env, "CLAIMTRACE_MCP_TOKEN": TOKEN}
    proc = subprocess.Popen([sys.executable, "-m", "ui.terminal.cli", "mcp", "--http", "--port", str(port)],
                            env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                refused = httpx.post(url, json={}, timeout=5)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "the MCP server did not start"
                time.sleep(0.5)
        assert refused.status_code == 401  # no token
        assert httpx.post(url, json={}, headers={"Authorization": "Bearer wrong"}, timeout=5).status_code == 401

        async def main() -> None:
            async with AsyncExitStack() as stack:
                read, write, _ = await stack.enter_async_context(
                    streamablehttp_client(url, headers={"Authorization": f"Bearer {TOKEN}"})
                )
                await exercise(await stack.enter_async_context(ClientSession(read, write)))

        asyncio.run(asyncio.wait_for(main(), timeout=600))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_non_loopback_address_without_a_token_is_refused(indexed_env: dict[str, str]):  # noqa: F811
    env = {k: v for k, v in indexed_env.items() if k != "CLAIMTRACE_MCP_TOKEN"}
    proc = subprocess.run([sys.executable, "-m", "ui.terminal.cli", "mcp", "--http", "--host", "0.0.0.0"],
                          env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "claimtrace: serving MCP on 0.0.0.0 (not loopback) needs CLAIMTRACE_MCP_TOKEN"



@pytest.mark.slow
def test_a_check_with_the_embedded_llm_over_stdio(indexed_env: dict[str, str]):  # noqa: F811
    """The product's own LLM (the GGUF `make setup` assembled) behind the MCP server: the check ends with a judged
    verdict, and every answer sentence cites a paper it was given."""
    models = BUILT_MODELS
    env = {k: v for k, v in indexed_env.items() if k != "LLM_SCRIPT"}
    env.update({"LLM_PROVIDER": "embedded", "MODELS_DIR": str(models), "LLM_TIMEOUT": "300",
                "DIRECTION_SECONDS": "120"})
    params = StdioServerParameters(command=sys.executable, args=["-m", "ui.terminal.cli", "mcp"], env=env,
                                   cwd=str(REPO))
    progress: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def main() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return dict(payload(await session.call_tool("check_claim", {"claim": CLAIM},
                                                        progress_callback=on_progress)))

    checked = asyncio.run(asyncio.wait_for(main(), timeout=900))
    assert any(m.startswith("judged verdict:") for m in progress), progress
    assert checked["verdict"]["label"] and not checked["verdict"]["provisional"]
    papers = {s["n"] for s in checked["sources"]}
    assert all(set(s["citations"]) <= papers for s in checked["sentences"])
    assert not [n for n in checked["notes"] if "unavailable" in n], checked["notes"]
