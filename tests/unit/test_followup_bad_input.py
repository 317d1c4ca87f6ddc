"""Bad follow-ups in the thread graph (scripted model, rule verifier): a request for sources before any claim, and
sentences that do not exist or are named by no number. Each gets a reply saying what to ask instead, with no LLM
call, and the thread keeps its checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from agent.followup.graph import build_thread_graph
from agent.followup.intent import asked_sentence
from agent.followup.sources import NO_ANSWER_YET
from tests.unit.test_followup import CHECK_RULES, CLAIM, VERIFIER_RULES

CFG = {"configurable": {"thread_id": "bad"}}
ROUTER = {"when": "Follow-up from the user", "reply": json.dumps({"action": "answer", "answer": "No link [1]."})}


@pytest.fixture
def checked_thread(make_deps: Any) -> tuple[Any, Any]:
    """A thread whose first check is done: its answer has one sentence."""
    deps = make_deps([ROUTER, *CHECK_RULES], verifier_rules=VERIFIER_RULES)
    graph = build_thread_graph(InMemorySaver())
    state = graph.invoke({"message": CLAIM}, CFG, context=deps)
    assert len(state["results"][0]["sentences"]) == 1
    return graph, deps


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("sources of sentence 99", 99, id="beyond_the_answer"),
        pytest.param("sources of sentence 0", 0, id="zero"),
        pytest.param("sources of sentence -1", -1, id="negative"),
        pytest.param("sources of sentence abc", "abc", id="not_a_number"),
        pytest.param("what are the sources behind sentence two?", 2, id="number_word"),
        pytest.param("evidence for the sentence about mice", None, id="described_not_numbered"),
        pytest.param("Evidence supports a longer prison sentence", None, id="claim_using_the_word"),
    ],
)
def test_asked_sentence_reads_what_was_written(text: str, expected: int | str | None):
    assert asked_sentence(text) == expected


def test_follow_up_before_any_claim(make_deps: Any):
    deps = make_deps(CHECK_RULES, verifier_rules=VERIFIER_RULES)
    graph = build_thread_graph(InMemorySaver())
    state = graph.invoke({"message": "what are the sources behind sentence 2?"}, CFG, context=deps)
    assert state["reply"] == {"kind": "sources", "sentence": 2, "error": NO_ANSWER_YET}
    assert not state.get("results") and not deps.llm.calls  # nothing was checked, no LLM call
    first = graph.invoke({"message": CLAIM}, CFG, context=deps)  # the thread then checks its first claim
    assert first["reply"]["kind"] == "check" and len(first["results"]) == 1


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param("sources of sentence 99", "there is no sentence 99: the last answer has 1 sentence(s)", id="99"),
        pytest.param("sources of sentence 0", "there is no sentence 0: the last answer has 1 sentence(s)", id="0"),
        pytest.param("sources of sentence -1", "there is no sentence -1:", id="minus_1"),
        pytest.param(
            "sources of sentence 123456789012345678901234567890",
            "“123456789012345678901234567890” is not a sentence number",
            id="huge",
        ),
        pytest.param("sources of sentence abc", "“abc” is not a sentence number", id="abc"),
    ],
)
def test_bad_sentence_reference_names_the_sentences_there_are(checked_thread: tuple[Any, Any], text: str, error: str):
    graph, deps = checked_thread
    calls = len(deps.llm.calls)
    before = graph.get_state(CFG).values["results"]
    reply = graph.invoke({"message": text}, CFG, context=deps)["reply"]
    assert reply["kind"] == "sources" and error in reply["error"] and "ask about sentence 1 to 1" in reply["error"]
    assert len(deps.llm.calls) == calls  # answered without the LLM
    assert graph.get_state(CFG).values["results"] == before  # the thread keeps its check
    good = graph.invoke({"message": "sources of sentence one"}, CFG, context=deps)["reply"]
    assert good["sentence"] == 1 and good["sources"] and "error" not in good
