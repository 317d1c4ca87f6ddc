"""A deterministic chat model for tests: replies by rule, supports `bind_tools` and streamed tool calls.

A rule is `{"when": "<substring of the last user/system text>", "reply": "...", "tool_calls": [...], "delay_s": 0,
"top_logprobs": {"A": 0.7, "B": 0.3}}`; the first matching rule answers, after `delay_s` seconds (a slow LLM), and a
rule without `when` matches anything. `top_logprobs` gives the first token's alternatives and their probabilities, as
an OpenAI-compatible server reports them when asked for log-probabilities. A rule with `"choose": "<substring>"`
answers the contrastive choice (prompts/direction.md) with the letter of the statement that contains the substring,
so one rule reads every claim the same way whichever order its statements come in.
Replies may be used any number of times.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCallChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import Field

_STATEMENT_A = re.compile(r"^Statement A: (.*)$", re.MULTILINE)


class NoRuleError(RuntimeError):
    """The script has no rule for a prompt: a fault of the test, never taken for a failing LLM server."""


class ScriptedChatModel(BaseChatModel):
    rules: list[dict[str, Any]] = Field(default_factory=list)
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    bound_tools: list[str] = Field(default_factory=list)

    @classmethod
    def from_file(cls, path: Path) -> ScriptedChatModel:
        return cls(rules=json.loads(Path(path).read_text()))

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _pick(self, messages: list[BaseMessage]) -> dict[str, Any]:
        self.calls.append(list(messages))
        text = "\n".join(str(m.content) for m in messages)
        for rule in self.rules:
            if "when" not in rule or rule["when"] in text:
                time.sleep(float(rule.get("delay_s", 0)))
                if "choose" in rule:
                    statement = _STATEMENT_A.search(text)
                    a_has = statement is not None and rule["choose"] in statement.group(1)
                    return {**rule, "reply": "A" if a_has else "B"}
                return rule
        raise NoRuleError(f"scripted model has no rule for: {text[:200]!r}")

    @staticmethod
    def _usage(messages: list[BaseMessage], reply: str) -> dict[str, int]:
        prompt = sum(len(str(m.content).split()) for m in messages)
        completion = len(reply.split())
        return {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        rule = self._pick(messages)
        reply = str(rule.get("reply", ""))
        tool_calls = [
            {
                "name": tc["name"],
                "args": tc.get("args", {}),
                "id": tc.get("id", f"call_{i}"),
                "type": "tool_call",
            }
            for i, tc in enumerate(rule.get("tool_calls", []))
        ]
        meta = self._logprobs(rule, reply)
        msg = AIMessage(
            content=reply, tool_calls=tool_calls, usage_metadata=self._usage(messages, reply), response_metadata=meta
        )
        return ChatResult(generations=[ChatGeneration(message=msg)])

    @staticmethod
    def _logprobs(rule: dict[str, Any], reply: str) -> dict[str, Any]:
        """The first token's alternatives as an OpenAI-compatible server reports them (none without the rule's)."""
        if "top_logprobs" not in rule:
            return {}
        top = [{"token": t, "logprob": math.log(p)} for t, p in rule["top_logprobs"].items() if p > 0]
        return {"logprobs": {"content": [{"token": reply, "logprob": 0.0, "top_logprobs": top}]}}

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        rule = self._pick(messages)
        reply = str(rule.get("reply", ""))
        meta = self._logprobs(rule, reply)  # streamed too, as a server streams them with the first token
        for word in reply.split(" "):
            piece = word + " "
            if run_manager:
                run_manager.on_llm_new_token(piece)
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece, response_metadata=meta))
            meta = {}
        for i, tc in enumerate(rule.get("tool_calls", [])):
            chunk = ToolCallChunk(
                name=tc["name"], args=json.dumps(tc.get("args", {})), id=tc.get("id", f"call_{i}"), index=i
            )
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[chunk]))
        yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=self._usage(messages, reply)))

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        self.bound_tools = [getattr(t, "name", getattr(t, "__name__", str(t))) for t in tools]
        return self.bind(**kwargs) if kwargs else self
