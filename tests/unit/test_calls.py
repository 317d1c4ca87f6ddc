"""agent.llm.calls.chat against a real ChatOpenAI client whose HTTP is replayed by httpx.MockTransport."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_openai import ChatOpenAI

from agent.llm.calls import chat, parse_json_object
from agent.llm.client import LLMUnavailableError

CUT_JSON = '{"questions": ["Does MMR vaccination raise autism risk?", "Autism incidence aft'


def completion(content: str, finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "local",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {"prompt_tokens": 218, "completion_tokens": 300, "total_tokens": 518},
    }


def model(body: dict[str, Any], seen: list[dict[str, Any]]) -> ChatOpenAI:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json=body)

    client = httpx.Client(transport=httpx.MockTransport(handler))
    return ChatOpenAI(model="local", base_url="http://llm.test/v1", api_key="x", http_client=client, max_retries=0)


def test_json_reply_cut_at_max_tokens_comes_back_as_text_with_usage() -> None:
    # The SDK's JSON-mode parser raises LengthFinishReasonError here; one long claim used to end the whole turn
    # (and a SciFact run) with "internal error".
    seen: list[dict[str, Any]] = []
    text, usage = chat(model(completion(CUT_JSON, "length"), seen), "sys", "user", json_mode=True, max_tokens=300)
    assert text == CUT_JSON
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (1, 218, 300)
    assert seen[0]["response_format"] == {"type": "json_object"}
    assert seen[0].get("max_completion_tokens", seen[0].get("max_tokens")) == 300
    assert parse_json_object(text) is None  # callers fall back, as for any unparsable reply


def test_complete_json_reply_is_returned_as_is() -> None:
    reply = json.dumps({"questions": ["q?"], "opposite_claim": "not so"})
    text, usage = chat(model(completion(reply, "stop"), []), "sys", "user", json_mode=True)
    assert parse_json_object(text) == {"questions": ["q?"], "opposite_claim": "not so"}
    assert usage.completion_tokens == 300


def test_a_text_reply_cut_at_max_tokens_loses_its_unfinished_sentence() -> None:
    cut = "No link was found [1]. A second study of 600 children found no link [2]. The largest of the"
    text, usage = chat(model(completion(cut, "length"), []), "sys", "user")
    assert text == "No link was found [1]. A second study of 600 children found no link [2]."
    assert usage.cut_replies == 1
    whole, usage = chat(model(completion(cut, "stop"), []), "sys", "user")
    assert whole == cut and usage.cut_replies == 0  # a reply that ended by itself is kept as written


class BrokenStream(httpx.SyncByteStream):
    """A streamed answer whose connection breaks after its first tokens."""

    def __iter__(self) -> Iterator[bytes]:
        delta = {"role": "assistant", "content": "No link"}
        chunk = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "local",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
        yield f"data: {json.dumps(chunk)}\n\n".encode()
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")


def test_a_connection_broken_mid_answer_is_one_clear_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=BrokenStream())

    client = httpx.Client(transport=httpx.MockTransport(handler))
    llm = ChatOpenAI(
        model="local", base_url="http://llm.test/v1", api_key="x", http_client=client, max_retries=0, streaming=True
    )
    with pytest.raises(LLMUnavailableError, match=r"unreachable \(peer closed connection without sending complete"):
        chat(llm, "sys", "user")
