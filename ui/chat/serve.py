"""The chat server process `claimtrace ui` starts (`python -m ui.chat.serve HOST PORT`): Chainlit's own `run` command,
with Chainlit's CORS list set to the served origins and ui.chat.guard in front of every request (foreign origins
refused, sign-ins throttled), serving a page that loads nothing from another host (ui.chat.offline_page)."""

from __future__ import annotations

import sys

from agent.settings.app import get_settings
from ui.chat.guard import ALL_INTERFACES, Guard, LoginThrottle, OriginPolicy, served_origins
from ui.chat.launch import APP
from ui.chat.offline_page import serve_offline

# seconds a browser may take to answer the socket's heartbeat before the server drops it (socket.io's default is
# 20): a 2-core server reading papers with the local LLM while twenty chats wait can fall that far behind, and a
# dropped socket loses the replies sent while the browser reconnects
HEARTBEAT_TIMEOUT_S = 60


def main(argv: list[str]) -> None:
    host, port = argv[0], int(argv[1])
    from chainlit.cli import cli
    from chainlit.config import config

    origins = served_origins(host, port, get_settings().ui.origins)
    config.project.allow_origins = origins  # read when chainlit.server builds its CORS middleware, just below
    from chainlit.server import app, sio

    sio.eio.ping_timeout = HEARTBEAT_TIMEOUT_S  # sent to each client in its handshake, so both sides wait as long
    serve_offline()  # the page links no font or stylesheet of another host
    app.add_middleware(Guard, policy=OriginPolicy(origins, any_host=host in ALL_INTERFACES), throttle=LoginThrottle())
    cli.main(["run", str(APP), "--headless", "--host", host, "--port", str(port)], prog_name="chainlit")


if __name__ == "__main__":
    main(sys.argv[1:])
