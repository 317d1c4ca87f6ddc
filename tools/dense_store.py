"""What a Chroma store that stops answering looks like: the errors its client raises, and the one the index raises
for them (a Chroma server that went down during a check)."""

from __future__ import annotations


class DenseStoreError(RuntimeError):
    """The Chroma store stopped answering; the message names it and the client's reason."""


def store_errors() -> tuple[type[BaseException], ...]:
    """What the Chroma client raises when its store is gone: httpx's errors (a server) or Chroma's own."""
    import httpx
    from chromadb.errors import ChromaError

    return (httpx.HTTPError, ChromaError)
