"""An OpenAI-compatible LLM server that fails (tests/fake_llm.py, on loopback) under `claimtrace ask`, through the real
ChatOpenAI client: every failure ends in one note that says what happened, and the check still ends, in a
provisional verdict that lists every source as not read by the LLM. (Unreachable and too slow:
tests/integration/test_cli.py.)"""

from __future__ import annotations

import json

import pytest

from tests.fake_llm import CUT_REPLY, fake_llm
from tests.integration.test_cli import CLAIM, assert_answered_without_llm, cli_env, indexed_env, run  # noqa: F401


def ask_with(behaviour: str, env: dict[str, str], retries: int) -> tuple[object, int]:
    with fake_llm(behaviour) as llm:
        env = {**env, "LLM_PROVIDER": "openai", "LLM_BASE_URL": llm.url, "LLM_MAX_RETRIES": str(retries)}
        proc = run(["ask", CLAIM, "--json"], env)
        return proc, llm.requests


@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        pytest.param("429", "the LLM server is rate-limiting requests (HTTP 429 Too Many Requests)", id="http_429"),
        pytest.param("500", "the LLM server failed (HTTP 500)", id="http_500"),
    ],
)
def test_llm_refusing_is_retried_then_the_verdict_is_provisional(
    indexed_env: dict[str, str],  # noqa: F811
    behaviour: str,
    message: str,
):
    proc, requests = ask_with(behaviour, indexed_env, retries=1)
    assert_answered_without_llm(proc, message)  # type: ignore[arg-type]
    assert requests == 2  # the first request and its one retry; nothing asks a refusing LLM again


def test_llm_sending_malformed_json_is_one_note(indexed_env: dict[str, str]):  # noqa: F811
    proc, requests = ask_with("malformed", indexed_env, retries=1)
    assert_answered_without_llm(proc, "the LLM server sent a reply that is not a chat completion (JSONDecodeError")  # type: ignore[arg-type]
    assert requests == 1  # a 200 is not retried


def test_llm_dropping_the_connection_is_one_note(indexed_env: dict[str, str]):  # noqa: F811
    proc, _ = ask_with("drop", indexed_env, retries=0)
    assert_answered_without_llm(proc, "the LLM is unreachable (")  # type: ignore[arg-type]


def test_answer_cut_at_its_budget_keeps_its_finished_sentences_without_a_note(indexed_env: dict[str, str]):  # noqa: F811
    proc, _ = ask_with("length", indexed_env, retries=0)
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    result = json.loads(proc.stdout)  # type: ignore[attr-defined]
    unfinished = CUT_REPLY.split("[1]. ")[1]
    assert unfinished not in result["original_answer"] and unfinished not in result["answer"]
    assert "found no association between MMR vaccination and autism" in result["original_answer"]
    assert result["llm"]["cut_replies"] >= 1 and result["verdict"]["label"]
    # the answer's own budget (ANSWER_MAX_TOKENS) ended it: by design, not a fault, so no note
    assert not [n for n in result["notes"] if "limit" in n or "cut" in n], result["notes"]


def test_an_openai_compatible_server_reads_direction_through_its_log_probabilities(
    indexed_env: dict[str, str],  # noqa: F811
):
    """The judge's contrastive choice through the real ChatOpenAI client: the server's first-token log-probabilities
    (0.8 for the statement that says "not", here the claim's opposite) become each source's direction."""
    proc, requests = ask_with("ok", indexed_env, retries=0)
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    result = json.loads(proc.stdout)  # type: ignore[attr-defined]
    assert result["opposite"] == "The MMR vaccine does not cause autism."
    judged = [a for a in result["assessments"] if a["judged_by"] == "verifier+llm"]
    assert judged and all(a["p_claim"] < 0.5 and a["score"] < 0 for a in judged)
    assert result["verdict"]["label"] in ("Generally refuted", "Weakly refuted")
    assert requests >= 3 * len(judged) + 1  # whether it bears, both orders per source, the answer (and any rewrite)
