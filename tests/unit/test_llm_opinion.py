"""The LLM second opinion on not-enough-info (evals/studies/llm_opinion.py): reading P(Yes) off the first token's
log-probabilities, the AUC, the combination with the verifier, and the on-disk answer cache."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import prompts
from evals.studies.llm_opinion import Asker, auc, combine, p_yes


def tok(token: str, p: float) -> dict[str, Any]:
    return {"token": token, "logprob": math.log(p)}


def test_p_yes_pools_spellings_and_ignores_other_tokens() -> None:
    top = [tok("Yes", 0.5), tok(" yes", 0.1), tok("No", 0.2), tok("The", 0.2)]
    assert p_yes(top) == pytest.approx(0.6 / 0.8)
    assert p_yes([tok("Maybe", 0.9)]) == 0.5


def test_auc_counts_ties_half_and_orders() -> None:
    assert auc([0.9, 0.8, 0.1], [True, True, False]) == 1.0
    assert auc([0.1, 0.9], [True, False]) == 0.0
    assert auc([0.5, 0.5], [True, False]) == 0.5


def test_combine_moves_only_the_nei_logit_towards_the_llm() -> None:
    logits = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    out = combine(logits, np.array([0.9, 0.1]), 1.0)
    assert (out[:, :2] == logits[:, :2]).all()
    assert out[0, 2] < 1.0 < out[1, 2]  # "Yes" lowers nei, "No" raises it
    assert (combine(logits, np.array([0.9, 0.1]), 0.0) == logits).all()


class FakeCompletions:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create(self, **kw: Any) -> Any:
        self.calls.append(kw)
        top = [SimpleNamespace(token="Yes", logprob=math.log(0.8)), SimpleNamespace(token="No", logprob=math.log(0.2))]
        content = [SimpleNamespace(top_logprobs=top)]
        return SimpleNamespace(
            choices=[SimpleNamespace(logprobs=SimpleNamespace(content=content))],
            usage=SimpleNamespace(prompt_tokens=120),
        )


def test_asker_renders_the_bearing_prompt_and_resumes_from_its_cache(tmp_path: Path) -> None:
    completions = FakeCompletions()
    client = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    ask = Asker(client, "m", tmp_path / "cache.jsonl")
    assert ask("Aspirin reduces fever.", "Trial: aspirin reduced fever.") == pytest.approx(0.8)
    sent = completions.calls[0]
    assert sent["messages"][0]["content"] == prompts.load("bearing_system")
    user = sent["messages"][1]["content"]
    assert (
        'Claim: "Aspirin reduces fever."' in user and "<evidence>\nTrial: aspirin reduced fever.\n</evidence>" in user
    )
    assert sent["max_tokens"] == 1 and sent["logprobs"] is True
    again = Asker(client, "m", tmp_path / "cache.jsonl")
    assert again("Aspirin reduces fever.", "Trial: aspirin reduced fever.") == pytest.approx(0.8)
    assert len(completions.calls) == 1 and again.asked == 0
