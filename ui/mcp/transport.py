"""How the MCP server (ui.mcp.server) is served: stdio (the default, what an MCP client starts), or streamable HTTP
(`--http`) on loopback; with `CLAIMTRACE_MCP_TOKEN` set, every HTTP request must carry `Authorization: Bearer
<token>`, and a non-loopback address is refused without it, as the chat refuses one without its password."""

from __future__ import annotations

import hmac
import json
import os
from typing import Any

from ui.mcp.server import build_server

TOKEN_ENV = "CLAIMTRACE_MCP_TOKEN"


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "::1", "localhost")


class BearerToken:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>`` (401 otherwise)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, b"Bearer " + self.token):
                body = json.dumps({"error": "a bearer token is required (CLAIMTRACE_MCP_TOKEN)"}).encode()
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve(http: bool, host: str, port: int) -> None:
    """Run the server: stdio, or streamable HTTP at http://host:port/mcp. ValueError for a non-loopback address
    without a token."""
    token = os.environ.get(TOKEN_ENV, "")
    if http and not is_loopback(host) and not token:
        raise ValueError(f"serving MCP on {host} (not loopback) needs {TOKEN_ENV}")
    server = build_server(host=host, port=port)
    if not http:
        server.run("stdio")
        return
    import uvicorn

    app = server.streamable_http_app()
    uvicorn.run(BearerToken(app, token) if token else app, host=host, port=port, log_level="warning")
