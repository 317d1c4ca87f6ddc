"""How much text one chat message may carry. Chainlit's socket.io server closes the connection on a message over
1 MB (engine.io's default), so a pasted file would vanish without a word; with this limit it arrives and
agent.service.validate_claim refuses it by its length at once. A message beyond it still closes the connection (the
client reconnects and nothing is stored)."""

from __future__ import annotations

MAX_MESSAGE_BYTES = 8 * 1024 * 1024


def accept_large_pastes() -> None:
    """Raise the socket's message limit to MAX_MESSAGE_BYTES (read for each incoming message)."""
    from chainlit.server import sio

    sio.eio.max_http_buffer_size = MAX_MESSAGE_BYTES
