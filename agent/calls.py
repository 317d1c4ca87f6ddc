"""One way to call the chat model: usage accounting, JSON mode and clear errors for a dead or slow LLM."""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agent.llm import LLMUnavailableError
from agent.state import Usage

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


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
    """Send one system+user turn; returns the reply text and its usage. Raises LLMUnavailableError."""
    import openai

    kwargs: dict[str, Any] = {"max_tokens": max_tokens}
    if json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    try:
        msg = llm.bind(**kwargs).invoke([SystemMessage(system), HumanMessage(user)])
    except openai.APITimeoutError as e:
        raise LLMUnavailableError("the LLM did not answer in time (LLM_TIMEOUT)") from e
    except openai.APIConnectionError as e:
        raise LLMUnavailableError(f"the LLM is unreachable ({e.__cause__ or e})") from e
    except openai.APIStatusError as e:
        raise LLMUnavailableError(f"the LLM refused the request: HTTP {e.status_code}") from e
    except openai.LengthFinishReasonError as e:
        # JSON mode goes through the SDK's parser, which raises when the reply hit max_tokens. The cut reply is
        # returned as it is: callers already treat an unparsable reply with their fallback.
        return _truncated_reply(e.completion)
    assert isinstance(msg, AIMessage)
    return str(msg.content), usage_of(msg)


def _truncated_reply(completion: Any) -> tuple[str, Usage]:
    """Text and usage of a completion that stopped at max_tokens."""
    choices = getattr(completion, "choices", None) or []
    text = (choices[0].message.content or "") if choices else ""
    usage = getattr(completion, "usage", None)
    return text, Usage(
        calls=1,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
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
