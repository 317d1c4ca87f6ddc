"""The embedded LLM loads on first need, in the background, and a failed load is one clear error (xllamacpp's
server is replaced by a fake: no model is loaded here)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import xllamacpp

from agent.llm import EmbeddedServer, LLMUnavailableError


class FakeServer:
    made: list[Any] = []
    fail = False

    def __init__(self, params: Any) -> None:
        if FakeServer.fail:
            raise RuntimeError("failed to load model")
        FakeServer.made.append(params)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeServer]:
    FakeServer.made, FakeServer.fail = [], False
    monkeypatch.setattr(xllamacpp, "Server", FakeServer)
    return FakeServer


def test_the_model_loads_on_first_need_once(fake: type[FakeServer]) -> None:
    server = EmbeddedServer(Path("/models/m.gguf"), n_ctx=1024, threads=2)
    assert server.base_url.startswith("http://127.0.0.1:") and fake.made == []  # nothing loads at start-up
    waiters = [threading.Thread(target=server.wait_ready) for _ in range(3)]
    for w in waiters:
        w.start()
    for w in waiters:
        w.join(timeout=10)
    server.wait_ready()
    assert len(fake.made) == 1 and fake.made[0].model.path == "/models/m.gguf"
    assert fake.made[0].n_ctx == 1024 and fake.made[0].port == server.port


def test_a_failed_load_is_one_clear_error(fake: type[FakeServer]) -> None:
    fake.fail = True
    server = EmbeddedServer(Path("/models/m.gguf"), n_ctx=1024, threads=2)
    with pytest.raises(LLMUnavailableError, match="the embedded LLM could not start: failed to load model"):
        server.wait_ready()
    with pytest.raises(LLMUnavailableError):  # and stays an error, without a second load
        server.wait_ready(timeout=1)
