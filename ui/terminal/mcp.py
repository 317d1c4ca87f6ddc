"""`claimtrace mcp`: the MCP server (ui/mcp/server.py) started from the command line, over stdio or streamable
HTTP; a non-loopback address without a token is one line and exit code 2."""

from __future__ import annotations

import argparse
from typing import Any

from agent.errors import EXIT_INPUT, CliError


def add_mcp_parser(sub: Any) -> None:
    mcp = sub.add_parser("mcp", help="serve checks to MCP clients (stdio; --http: streamable HTTP)")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp, not stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="address for --http (default 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=8765, help="port for --http (default 8765)")


def cmd_mcp(args: argparse.Namespace) -> int:
    from ui.mcp.transport import serve

    try:
        serve(args.http, args.host, args.port)
    except ValueError as e:
        raise CliError(str(e), EXIT_INPUT) from e
    return 0
