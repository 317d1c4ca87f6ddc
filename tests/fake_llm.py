"""A loopback OpenAI-compatible chat server that fails on purpose, for the LLM fault tests: the real ChatOpenAI
client (LLM_PROVIDER=openai, LLM_BASE_URL) talks to it over HTTP like to any provider."""

from __future__ import annotations

import http.server
import json
import math
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# A reply that stopped at the token limit: one full sentence, then an unfinished one.
CUT_REPLY = "Large cohort studies found no association between MMR vaccination and autism [1]. The largest of the"
FULL_REPLY = "Large cohort studies found no association between MMR vaccination and autism [1]."
BROKEN_BODY = b'{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "mess'


def completion(content: str, finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 30, "total_tokens": 230},
    }


def choice_completion(request: dict[str, Any]) -> dict[str, Any]:
    """A one-token reply with the first token's log-probabilities, as OpenAI sends them: to the judge's question
    whether the evidence bears on the claim, Yes (P = 0.8); to its contrastive choice, P = 0.8 for the statement that
    says "not", 0.2 for the other."""
    prompt = str(request["messages"][-1]["content"])
    if "Does the evidence report a finding" in prompt:
        top = [{"token": "Yes", "logprob": math.log(0.8), "bytes": [89, 101, 115]},
               {"token": "No", "logprob": math.log(0.2), "bytes": [78, 111]}]
        body = completion("Yes", "length")
        body["choices"][0]["logprobs"] = {"content": [{**top[0], "top_logprobs": top}]}
        return body
    statement_a = re.search(r"^Statement A: (.*)$", prompt, re.MULTILINE)
    p_a = 0.8 if statement_a and " not " in statement_a.group(1) else 0.2
    top = [
        {"token": "A", "logprob": math.log(p_a), "bytes": [65]},
        {"token": "B", "logprob": math.log(1 - p_a), "bytes": [66]},
    ]
    letter = "A" if p_a > 0.5 else "B"
    body = completion(letter, "length")
    body["choices"][0]["logprobs"] = {"content": [{**top[0 if letter == "A" else 1], "top_logprobs": top}]}
    return body


class FakeLLM:
    """`behaviour` picks the answer to every chat request: "ok", "length" (finish_reason "length"), "429", "500",
    "malformed" (a 200 whose body is cut-off JSON), "slow" (5 s, then 500) or "drop" (the connection is closed with
    no reply). With "ok" or "length", a request for log-probabilities (the judge's contrastive choice) gets a
    one-letter reply with them (`choice_completion`). `requests` counts the chat requests it received."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.requests = 0
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.requests += 1
                fake.answer(self, raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, h: http.server.BaseHTTPRequestHandler, raw: bytes = b"") -> None:
        b = self.behaviour
        if b == "drop":
            h.close_connection = True
            h.connection.close()
            return
        if b == "slow":
            time.sleep(5)
        if b in ("429", "500", "slow"):
            status = 429 if b == "429" else 500
            body = json.dumps({"error": {"message": f"fake {status}", "type": "server_error"}}).encode()
            self._send(h, status, body, {"Retry-After": "0"})
        elif b == "malformed":
            self._send(h, 200, BROKEN_BODY)
        else:
            request = json.loads(raw or b"{}")
            if b in ("ok", "length") and request.get("logprobs"):  # the judge's one-token choice is never cut
                self._send(h, 200, json.dumps(choice_completion(request)).encode())
                return
            reply, reason = (CUT_REPLY, "length") if b == "length" else (FULL_REPLY, "stop")
            self._send(h, 200, json.dumps(completion(reply, reason)).encode())

    @staticmethod
    def _send(h: http.server.BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None):
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)


@contextmanager
def fake_llm(behaviour: str) -> Iterator[FakeLLM]:
    fake = FakeLLM(behaviour)
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.server.shutdown()
        fake.server.server_close()


class ScriptedLLMServer:
    """A loopback OpenAI-compatible chat server that answers by the rules of agent/llm/scripted.py (`when`, `reply`,
    `choose`, `top_logprobs`, `delay_s`), plain or streamed, for tests of several processes sharing one LLM server
    (LLM_PROVIDER=openai, LLM_BASE_URL). A rule may also name `meet`, a list of texts: a request it answers is held
    until the requests being answered together contain each text, or for `delay_s` at most, so that a test arranges two
    processes' requests to overlap instead of hoping they do; once they have met, the rule holds no request. `rules`
    may be replaced while it serves; `release()` ends every wait at once. `requests` counts the chat requests it
    received; `together` holds, for each request that came while others were being answered, the prompts of all of
    them."""

    def __init__(self, rules: list[dict[str, Any]]) -> None:
        self.rules = rules
        self.requests = 0
        self.together: list[list[str]] = []
        self._in_flight: dict[int, str] = {}
        self._count = threading.Condition()
        self._released = threading.Event()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the openai client expects of a server

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                prompt = "\n".join(str(m.get("content") or "") for m in request.get("messages", []))
                with fake._count:
                    fake.requests += 1
                    fake._in_flight[id(request)] = prompt
                    if len(fake._in_flight) > 1:
                        fake.together.append(list(fake._in_flight.values()))
                    fake._count.notify_all()
                try:
                    reply, top = fake.pick(request)
                    if request.get("stream"):
                        fake.stream(self, reply, top)
                    else:
                        body = completion(reply, "stop")
                        if top and request.get("logprobs"):
                            body["choices"][0]["logprobs"] = logprobs_of(reply, top)
                        FakeLLM._send(self, 200, json.dumps(body).encode())
                except OSError:  # the client went away (its process was killed): nothing to answer
                    pass
                finally:
                    with fake._count:
                        del fake._in_flight[id(request)]

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def release(self) -> None:
        self._released.set()
        with self._count:
            self._count.notify_all()

    def wait(self, rule: dict[str, Any]) -> None:
        """Hold a request for `delay_s`, or, for a rule with `meet`, until the requests in flight contain each of its
        texts or have contained them at some moment before (at most `delay_s`); `release()` ends either wait."""
        delay = float(rule.get("delay_s", 0))
        meet = list(rule.get("meet", []))
        if not meet:
            self._released.wait(delay)
            return
        with self._count:
            self._count.wait_for(
                lambda: self._released.is_set()
                or any(
                    all(any(text in p for p in prompts) for text in meet)
                    for prompts in [*self.together, list(self._in_flight.values())]
                ),
                timeout=delay,
            )

    def pick(self, request: dict[str, Any]) -> tuple[str, dict[str, float]]:
        """The first rule whose `when` is in the request's messages: its reply and first-token probabilities."""
        text = "\n".join(str(m.get("content") or "") for m in request.get("messages", []))
        for rule in list(self.rules):
            if "when" not in rule or rule["when"] in text:
                self.wait(rule)
                if "choose" in rule:
                    statement = re.search(r"^Statement A: (.*)$", text, re.MULTILINE)
                    return ("A" if statement and rule["choose"] in statement.group(1) else "B"), {}
                return str(rule.get("reply", "")), dict(rule.get("top_logprobs", {}))
        return f"no rule for: {text[:200]}", {}

    @staticmethod
    def stream(h: http.server.BaseHTTPRequestHandler, reply: str, top: dict[str, float]) -> None:
        """The reply as server-sent chunks, a word each, then the usage and [DONE]."""
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
            body = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **extra}]}
            h.wfile.write(f"data: {json.dumps(body)}\n\n".encode())

        words = reply.split(" ")
        for i, word in enumerate(words):
            extra = {"logprobs": logprobs_of(reply, top)} if top and i == 0 else {}
            chunk({"role": "assistant", "content": word + (" " if i < len(words) - 1 else "")}, **extra)
        chunk({}, "stop")
        usage = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "fake", "choices": [],
                 "usage": {"prompt_tokens": 200, "completion_tokens": len(words), "total_tokens": 200 + len(words)}}
        h.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
        h.wfile.flush()


def logprobs_of(reply: str, top: dict[str, float]) -> dict[str, Any]:
    alts = [{"token": t, "logprob": math.log(p), "bytes": list(t.encode())} for t, p in top.items() if p > 0]
    return {"content": [{"token": reply, "logprob": 0.0, "bytes": list(reply.encode()), "top_logprobs": alts}]}


@contextmanager
def scripted_llm_server(rules: list[dict[str, Any]]) -> Iterator[ScriptedLLMServer]:
    fake = ScriptedLLMServer(rules)
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.release()
        fake.server.shutdown()
        fake.server.server_close()
