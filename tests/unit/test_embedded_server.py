"""The embedded LLM loads on first need, in the background; a failed load is one clear error; a server that stops
mid-answer is loaded again once, then it is one clear error (xllamacpp's server is replaced by fakes: no model is
loaded here; the stopping one answers over loopback HTTP through the real ChatOpenAI client)."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import xllamacpp

from agent.llm.calls import chat
from agent.llm.client import EmbeddedServer, LLMUnavailableError, make_chat_model
from agent.result import CheckResult
from agent.service import run_claim
from agent.settings.app import Settings
from agent.state import Deps
from tests.fake_llm import FULL_REPLY, completion


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


class StoppingServer:
    """xllamacpp.Server's stand-in that serves chat completions on loopback like the native one; `stops` says, per
    load, whether it stops in the middle of its first answer (it reads the request, then closes the connection and
    its port without a reply)."""

    stops: list[bool] = []
    made: list[int] = []

    def __init__(self, params: Any) -> None:
        stop = StoppingServer.stops[len(StoppingServer.made)]
        StoppingServer.made.append(params.port)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if stop:
                    self.close_connection = True
                    self.connection.close()
                    threading.Thread(target=httpd.shutdown).start()
                    return
                body = json.dumps(completion(FULL_REPLY, "stop")).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", params.port), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.httpd = httpd


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Iterator[tuple[EmbeddedServer, Any]]:
    """The embedded chat model as make_chat_model makes it, on a server of StoppingServer loads."""
    StoppingServer.stops, StoppingServer.made = [], []
    monkeypatch.setattr(xllamacpp, "Server", StoppingServer)
    server = EmbeddedServer(Path("/models/m.gguf"), n_ctx=1024, threads=2)
    monkeypatch.setattr(EmbeddedServer, "_instance", server)  # what EmbeddedServer.get gives, no GGUF needed
    yield server, make_chat_model(settings.with_values(llm={"provider": "embedded", "max_retries": 1}))
    if server._server is not None:  # the last load, when it still serves
        server._server.httpd.shutdown()


def test_a_server_that_stops_mid_answer_is_loaded_again_once(embedded: tuple[EmbeddedServer, Any]) -> None:
    server, llm = embedded
    StoppingServer.stops = [True, False]
    text, _ = chat(llm, "sys", "user")
    assert text == FULL_REPLY  # the request went again, to the second load
    assert server.restarts == 1 and len(StoppingServer.made) == 2
    assert StoppingServer.made[1] == server.port != StoppingServer.made[0]  # a new port: the old one may be held


def test_a_second_stop_is_one_clear_error_and_the_verdict_says_what_was_not_read(
    embedded: tuple[EmbeddedServer, Any], make_deps: Callable[..., Deps]
) -> None:
    server, llm = embedded
    StoppingServer.stops = [True, True]
    message = r"the embedded LLM stopped answering again after a restart \(.+\); restart claimtrace to use it again"
    with pytest.raises(LLMUnavailableError, match=message):
        chat(llm, "sys", "user")
    deps = make_deps([], verifier_rules={"not associated": "contradicts", "no relationship": "contradicts"})
    result = CheckResult.from_state(run_claim("The MMR vaccine causes autism.", replace(deps, llm=llm)))
    assert len(StoppingServer.made) == 2  # never a third load: every later request fails at once
    # the first LLM call of the check, the direction's, meets the stopped server: each source is listed with the
    # verifier's reading and not counted (the verifier alone does not stand in for the LLM), and the answer is the
    # provisional verdict, written without the LLM
    assert [n for n in result.notes if n.startswith("judge_sources: the LLM is unavailable (the embedded LLM stopped "
                                                    "answering again")], result.notes
    unread = [s for s in result.silent if s.unread]
    assert result.assessments == [] and unread and all(s.reason.startswith("Not read by the LLM") for s in unread)
    assert result.verdict is not None and result.verdict.unread == len(unread)
    assert result.answer.startswith("Not enough evidence so far (provisional): the LLM did not read")
