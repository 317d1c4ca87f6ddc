"""`claimtrace llm-server`: the embedded model (the GGUF that `claimtrace model` assembles and checks) behind
llama.cpp's OpenAI-compatible server on a fixed address, for several chat instances to share as their LLM_BASE_URL.
`--parallel N` answers N requests at once (continuous batching); give the chat instances LLM_PARALLEL=N so that
they admit as many checks at once between them. It serves until it is stopped (Ctrl-C, SIGTERM)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from typing import Any

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError


def add_llm_server_parser(sub: Any) -> None:
    p = sub.add_parser("llm-server", help="serve the embedded model over an OpenAI-compatible API for chat instances")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port to listen on (default 8080)")
    p.add_argument("--parallel", type=int, default=1, help="requests answered at once (default 1)")


def cmd_llm_server(args: argparse.Namespace) -> int:
    import httpx

    from agent.llm.client import GGUF_NAME, ensure_gguf, serve_gguf
    from agent.settings.app import get_settings

    if args.parallel < 1:
        raise CliError("--parallel must be 1 or more", EXIT_INPUT)
    settings = get_settings()
    try:
        path = ensure_gguf(settings.stores.model_dir)
        server = serve_gguf(path, settings.llm.embedded_ctx, settings.llm.embedded_threads, args.host, args.port,
                            args.parallel)
    except Exception as e:  # a missing model or a native start-up failure: one line
        raise CliError(f"the LLM server could not start: {e}", EXIT_UNAVAILABLE) from e
    url = f"http://{args.host}:{args.port}/v1"
    try:  # the server answers once the model is loaded
        httpx.get(f"http://{args.host}:{args.port}/health", timeout=300).raise_for_status()
    except httpx.HTTPError as e:
        raise CliError(f"the LLM server did not come up at {url}: {e}", EXIT_UNAVAILABLE) from e
    print(f"serving {GGUF_NAME} at {url} ({args.parallel} request(s) at once); LLM_PROVIDER=openai "
          f"LLM_BASE_URL={url} points a chat instance at it", file=sys.stderr, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    del server
    return 0
