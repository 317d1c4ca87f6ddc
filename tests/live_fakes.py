"""Test doubles for the live literature sources: recorded-format fixture files, an httpx.MockTransport script, a
recording sleep, and a loopback HTTP server that plays a source (no test reaches beyond 127.0.0.1)."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx

from agent.settings.app import Settings
from tools.live.http import LiveHttp, RateLimiter, ResponseCache, RetryPolicy

LIVE_FIXTURES = Path(__file__).parent / "fixtures" / "live"

Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


def fixture(name: str) -> str:
    return (LIVE_FIXTURES / name).read_text(encoding="utf-8")


def live_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """Settings whose live base URLs are fake hosts (only a MockTransport or a loopback server answers them)."""
    live: dict[str, Any] = {
        "europepmc_base_url": "https://epmc.test/rest",
        "ncbi_base_url": "https://ncbi.test/eutils",
        "openalex_base_url": "https://openalex.test",
        "s2_base_url": "https://s2.test/graph/v1",
        "contact_email": "tester@example.org",
        **overrides,
    }
    return Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path}, llm={"provider": "scripted"}, live=live
    )


class Script:
    """An httpx.MockTransport handler: per URL path, the replies to give in order (the last one repeats)."""

    def __init__(self, routes: dict[str, list[Reply]]) -> None:
        self.routes = routes
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        key = next((p for p in self.routes if path.endswith(p)), None)
        if key is None:
            return httpx.Response(404, text="no route")
        replies = self.routes[key]
        reply = replies.pop(0) if len(replies) > 1 else replies[0]
        if isinstance(reply, Exception):
            raise reply
        if callable(reply) and not isinstance(reply, httpx.Response):
            return reply(request)
        return reply

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    def calls(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path.endswith(path)]


def ok(body: str, content_type: str = "application/json") -> httpx.Response:
    return httpx.Response(200, text=body, headers={"Content-Type": content_type})


class Sleeps:
    """An injectable sleep that records the waits and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def live_http(script: Script, cache_root: Path | None, sleeps: Sleeps | None = None, **policy: Any) -> LiveHttp:
    """A LiveHttp over the script, with the recording sleep and no rate spacing (tests of spacing use their own
    limiter and clock)."""
    cache = ResponseCache(cache_root, ttl=3600) if cache_root else None
    limiters: dict[str, RateLimiter] = {}

    def unlimited(url: str, rate: float) -> RateLimiter:
        return limiters.setdefault(url, RateLimiter(1e9))

    client = httpx.AsyncClient(transport=script.transport())
    return LiveHttp(client, cache, RetryPolicy(**policy), sleep=sleeps or Sleeps(), limiters=unlimited)


def run_search(search: Callable[..., Any], settings: Settings, http: LiveHttp, query: str, k: int = 5) -> Any:
    """Run one source's `search` to completion on a fresh event loop."""

    async def go() -> Any:
        async with http.client:
            return await search(http, settings.live, query, k)

    return asyncio.run(go())


class FakeSource:
    """A loopback HTTP server playing a literature API: `routes` maps a path suffix to (status, body, headers)."""

    def __init__(self, routes: dict[str, tuple[int, str, dict[str, str]]]) -> None:
        self.routes = routes
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                u = urlparse(self.path)
                fake.requests.append((u.path, parse_qs(u.query)))
                key = next((p for p in fake.routes if u.path.endswith(p)), None)
                status, body, headers = fake.routes[key] if key else (404, "{}", {})
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", headers.get("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    if k != "Content-Type":
                        self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @contextmanager
    def running(self) -> Iterator[FakeSource]:
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()


def europepmc_record(doc_id: str, title: str, abstract: str, **extra: Any) -> dict[str, Any]:
    """One Europe PMC `resultType=core` record."""
    return {
        "id": doc_id,
        "source": "MED",
        "pmid": doc_id,
        "title": title,
        "abstractText": abstract,
        "pubYear": "2021",
        "journalInfo": {"yearOfPublication": 2021, "journal": {"title": "Journal of Loopback Studies"}},
        "pubTypeList": {"pubType": ["Journal Article"]},
        "citedByCount": 25,
        **extra,
    }


def europepmc_page(records: list[dict[str, Any]]) -> str:
    return json.dumps(
        {
            "version": "6.9",
            "hitCount": len(records),
            "request": {"resultType": "core", "pageSize": 5},
            "resultList": {"result": records},
        }
    )
