"""One way to call the chat model: usage accounting, JSON mode, replies cut at the token limit, a check's reading of
its papers first (agent.llm.turns), and one clear error (LLMUnavailableError) for every way an LLM server can fail:
down, too slow, refusing (429, 5xx), breaking the connection mid-answer, or sending a body that is not a chat
completion."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agent.llm.client import LLMUnavailableError
from agent.llm.turns import TURNS
from agent.state import Usage
from tools.text.i18n import written

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)
# the end of a sentence: . ! or ? (a citation bracket may follow it), then closing quotes or brackets, then space or end
_SENTENCE_END = re.compile(r"[.!?](?:\s*\[[\d,\s]+\])?[\"')\]]*(?=\s|$)")
# what langchain-openai raises on a 200 reply that is not a chat completion (broken JSON, a list, no choices)
_MALFORMED = (json.JSONDecodeError, TypeError, AttributeError, KeyError, ValueError)


def usage_of(msg: AIMessage) -> Usage:
    meta: dict[str, Any] = dict(msg.usage_metadata or {})
    return Usage(
        calls=1,
        prompt_tokens=int(meta.get("input_tokens", 0)),
        completion_tokens=int(meta.get("output_tokens", 0)),
        cached_tokens=int((meta.get("input_token_details") or {}).get("cache_read", 0) or 0),
    )


def chat(
    llm: BaseChatModel, system: str, user: str, json_mode: bool = False, max_tokens: int = 400
) -> tuple[str, Usage]:
    """Send one system+user turn; returns the reply text and its usage. Raises LLMUnavailableError.

    A text reply that stopped at ``max_tokens`` loses its unfinished last sentence and counts in
    ``usage.cut_replies``, so the caller can say so."""
    kwargs: dict[str, Any] = {"max_tokens": max_tokens}
    if json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    try:
        msg = invoke(llm, system, user, **kwargs)
    except CutReply as cut:
        return _truncated_reply(cut.completion)
    text, usage = str(msg.content), usage_of(msg)
    if not json_mode and (msg.response_metadata or {}).get("finish_reason") == "length":
        text, usage.cut_replies = complete_sentences(text), 1
    return text, usage


class CutReply(Exception):
    """A JSON-mode reply that stopped at max_tokens (the SDK's parser refuses it); carries the completion."""

    def __init__(self, completion: Any) -> None:
        super().__init__("reply cut at max_tokens")
        self.completion = completion


def invoke(llm: BaseChatModel, system: str, user: str, **kwargs: Any) -> AIMessage:
    """One system+user turn with ``kwargs`` bound; every way the server can fail is one LLMUnavailableError, and a
    JSON-mode reply cut at max_tokens is CutReply."""
    import openai

    try:
        with TURNS.call():
            msg = llm.bind(**kwargs).invoke([SystemMessage(system), HumanMessage(user)])
    except openai.APITimeoutError as e:
        raise LLMUnavailableError(written("the LLM did not answer in time (LLM_TIMEOUT)")) from e
    except openai.APIConnectionError as e:
        cause = root_cause(e)
        if isinstance(cause, LLMUnavailableError):  # the embedded server's own word (did not start, stopped twice)
            raise LLMUnavailableError(str(cause)) from e
        raise LLMUnavailableError(written("the LLM is unreachable ({cause})", cause=cause)) from e
    except openai.APIStatusError as e:
        raise LLMUnavailableError(refusal(e.status_code)) from e
    except openai.LengthFinishReasonError as e:
        # JSON mode goes through the SDK's parser, which raises when the reply hit max_tokens
        raise CutReply(e.completion) from e
    except _MALFORMED as e:
        raise LLMUnavailableError(
            f"the LLM server sent a reply that is not a chat completion ({type(e).__name__}: {str(e)[:120]})"
        ) from e
    assert isinstance(msg, AIMessage)
    return msg


def first_token(llm: BaseChatModel, system: str, user: str, top: int = 10) -> tuple[str, dict[str, float], Usage]:
    """A one-token reply and the probabilities of its ``top`` most likely first tokens (token text -> probability,
    summed over tokens that differ only in spaces), from the server's log-probabilities; an empty dict when the
    server does not send them. Raises LLMUnavailableError."""
    msg = invoke(llm, system, user, max_tokens=1, logprobs=True, top_logprobs=top)
    content = ((msg.response_metadata or {}).get("logprobs") or {}).get("content") or []
    probs: dict[str, float] = {}
    for alt in content[0].get("top_logprobs", []) if content else []:
        token = str(alt.get("token", "")).strip()
        probs[token] = probs.get(token, 0.0) + math.exp(float(alt.get("logprob", -math.inf)))
    return str(msg.content), probs, usage_of(msg)


def with_tools(llm: BaseChatModel, tools: Sequence[Any], system: str, user: str, doing: str) -> AIMessage:
    """One system+user turn with ``tools`` bound (native tool calls, for OpenAI-style models); a failing server is
    one LLMUnavailableError saying what the LLM was ``doing``."""
    import openai

    try:
        with TURNS.call():
            msg = llm.bind_tools(tools).invoke([SystemMessage(system), HumanMessage(user)])
    except (openai.APITimeoutError, openai.APIConnectionError, openai.APIStatusError) as e:
        raise LLMUnavailableError(f"the LLM failed while {doing} ({type(e).__name__})") from e
    assert isinstance(msg, AIMessage)
    return msg


def root_cause(e: BaseException) -> BaseException:
    """The first error of a chain: the socket's own reason under the SDK's "Connection error." (langchain-openai
    wraps a streamed answer's broken connection once more)."""
    while e.__cause__ is not None:
        e = e.__cause__
    return e


def refusal(status: int) -> str:
    """What an HTTP error status of the LLM server means for the user."""
    if status == 429:
        return written("the LLM server is rate-limiting requests (HTTP 429 Too Many Requests)")
    if status >= 500:
        return written("the LLM server failed (HTTP {status})", status=status)
    return written("the LLM refused the request: HTTP {status}", status=status)


def complete_sentences(text: str) -> str:
    """``text`` without an unfinished last sentence (all of it when no sentence ends)."""
    ends = list(_SENTENCE_END.finditer(text))
    return text[: ends[-1].end()] if ends else text


def _truncated_reply(completion: Any) -> tuple[str, Usage]:
    """Text and usage of a completion that stopped at max_tokens."""
    choices = getattr(completion, "choices", None) or []
    text = (choices[0].message.content or "") if choices else ""
    usage = getattr(completion, "usage", None)
    return text, Usage(
        calls=1,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cut_replies=1,
    )


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (code fences and chatter around it tolerated), or None."""
    cleaned = _FENCE.sub("", text.strip())
    try:
        obj = json.loads(cleaned)
        return obj if isinstance(obj, dict) else None
    except json.JSONDecodeError:
        pass
    start, end = cleaned.find("{"), cleaned.rfind("}")
    if 0 <= start < end:
        try:
            obj = json.loads(cleaned[start : end + 1])
            return obj if isinstance(obj, dict) else None
        except json.JSONDecodeError:
            return None
    return None
