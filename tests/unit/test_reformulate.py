"""A second search round when the evidence is thin: the verdict asks for it, the LLM reformulates (JSON with the
embedded model, native tool calls with OpenAI-style models), the new queries are searched and judged, what already
bore on the claim is kept, the round is said in the notes and shown as a step, and SEARCH_ROUNDS bounds it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.runtime import Runtime

import prompts
from agent.graph import build_graph
from agent.judge.verdict import thin
from agent.llm.client import LLMUnavailableError
from agent.nodes.reformulate import new_queries, plan, reformulate
from agent.state import SourceAssessment, Verdict
from tests.conftest import direction_rules
from ui.chat.steps import step_markdown

NONE_BEARS = "Acetylsalicylic acid lowers the rate of myocardial infarction."
ONE_BEARS = "Salicylates protect the heart."
QUERY = "aspirin heart attack prevention in diabetes"
VERIFIER = {"aspirin reduced": "supports"}  # only doc 105's second sentence bears on the claims


def search_rule(*queries: str) -> dict[str, Any]:
    return {"when": "found too little", "reply": json.dumps({"action": "search", "queries": list(queries)})}


def graph_deps(make_deps, rules, **judge: Any):
    rules = [*rules, *direction_rules(NONE_BEARS), *direction_rules(ONE_BEARS)]
    deps = make_deps(rules, verifier_rules=VERIFIER)
    deps.settings = deps.settings.with_values(judge={"top_docs": 1, **judge}, retrieval={"search_rounds": 1})
    return deps


def run(deps, claim: str) -> dict[str, Any]:
    return build_graph(last="reformulate").invoke({"claim": claim}, context=deps)


def reformulate_calls(deps) -> int:
    return sum("found too little" in str(m.content) for call in deps.llm.calls for m in call)


def assessment(score: float, confidence: float, weight: float = 1.0) -> SourceAssessment:
    label = "True" if score > 0 else "False" if score < 0 else "No Evidence"
    return SourceAssessment(doc_id="d", label=label, score=score, reputation=weight, explanation="",
                            stance_confidence=confidence)


def test_what_counts_as_thin():
    assert thin([], 0.5)  # nothing bears
    assert thin([assessment(1.0, 0.9)], 0.5)  # one source alone
    assert thin([assessment(1.0, 0.4), assessment(-0.66, 0.3)], 0.5)  # none confident
    assert thin([assessment(1.0, 0.9), assessment(0.0, 0.9)], 0.5)  # a no-evidence label is not a second source
    leaning = SourceAssessment(doc_id="n", label="No Evidence", score=0.12, reputation=1.0, explanation="",
                               stance_confidence=0.56)
    assert thin([assessment(0.33, 0.46), leaning], 0.5)  # nor is one whose score leans but whose label is no evidence
    assert thin([assessment(1.0, 0.9), assessment(1.0, 0.9, weight=0.0)], 0.5)  # nor is a retracted one
    assert not thin([assessment(1.0, 0.9), assessment(0.66, 0.3)], 0.5)


def test_the_llm_queries_are_cleaned():
    searched = ["Aspirin prevents heart attacks."]
    raw = ["  aspirin   myocardial infarction ", "ASPIRIN PREVENTS HEART ATTACKS.", 7, "", "word " * 30,
           "aspirin myocardial infarction", "a", "b", "c"]
    assert new_queries(raw, searched) == ["aspirin myocardial infarction", "a", "b"]
    assert new_queries("not a list", searched) == []


def test_nothing_bears_so_it_searches_again_and_finds_the_source(make_deps):
    deps = graph_deps(make_deps, [search_rule(QUERY)])
    first = build_graph(last="verdict").invoke({"claim": NONE_BEARS}, context=deps)
    assert first["verdict"].counted_sources == 0 and first["search_again"] is True
    out = run(deps, NONE_BEARS)
    assert out["rounds"] == 1 and out["round_queries"] == [QUERY]
    assert [q.kind for q in out["queries"]][-1] == "reformulated" and QUERY in out["searched"]
    assert [a.doc_id for a in out["assessments"]] == ["105"] and out["verdict"].supporting == 1
    assert any("search round 2" in n and QUERY in n and "no source that bears" in n for n in out["notes"])
    assert reformulate_calls(deps) == 1  # one source now bears, but SEARCH_ROUNDS=1 allows no third round
    step = step_markdown("reformulate", {"round_queries": [QUERY], "notes": []})
    assert "search runs again with" in step and "aspirin heart attack prevention in diabetes" in step


def test_a_second_round_keeps_the_source_that_bore_and_reads_new_ones(make_deps):
    deps = graph_deps(make_deps, [search_rule(QUERY)])
    out = run(deps, ONE_BEARS)
    read = list(dict.fromkeys(e.doc_id for e in out["evidence"]))
    assert out["rounds"] == 1 and "105" in read
    assert len({c.doc_id for c in out["candidates"][:3]}) == 3
    assert any("a single source that bears" in n for n in out["notes"])


def test_the_model_may_stop_and_the_verdict_stands(make_deps):
    deps = graph_deps(make_deps, [{"when": "found too little", "reply": '{"action": "stop"}'}])
    out = run(deps, NONE_BEARS)
    assert out["rounds"] == 1 and "round_queries" not in out
    assert out["verdict"].label == "Not enough evidence"
    assert any("no new query worth searching" in n for n in out["notes"])


def test_search_rounds_bound_the_loop(make_deps):
    deps = graph_deps(make_deps, [search_rule("coffee liver"), search_rule("sleep dementia")])
    deps.settings = deps.settings.with_values(retrieval={"search_rounds": 0})
    assert run(deps, NONE_BEARS).get("rounds") is None and reformulate_calls(deps) == 0
    deps.settings = deps.settings.with_values(retrieval={"search_rounds": 2})
    # each round's prompt lists what was searched, so each round gets a new query; a third round would search
    # "never asked"
    deps.llm.rules = [
        {**search_rule("never asked"), "when": "- sleep duration dementia"},
        {**search_rule("sleep duration dementia"), "when": "- coffee liver fibrosis"},
        search_rule("coffee liver fibrosis"),
    ]
    out = run(deps, "Vitamin K makes bones brittle.")
    assert out["rounds"] == 2 and reformulate_calls(deps) == 2
    assert "sleep duration dementia" in out["searched"] and "never asked" not in out["searched"]


def test_a_failing_llm_leaves_the_verdict_as_it_is(make_deps, monkeypatch):
    deps = graph_deps(make_deps, [])

    def down(*_a: Any, **_k: Any) -> Any:
        raise LLMUnavailableError("the LLM is unreachable (test)")

    monkeypatch.setattr("agent.nodes.reformulate.plan", down)
    out = reformulate({"claim": NONE_BEARS, "searched": [NONE_BEARS]}, Runtime(context=deps))
    assert out["rounds"] == 1 and out["llm_error"] and "no second search round" in out["notes"][0]


def test_openai_style_models_get_native_tools(make_deps):
    search_again = {"name": "SearchAgain", "args": {"queries": [QUERY]}}
    deps = make_deps([{"when": "found too little", "tool_calls": [search_again]}])
    deps.settings = deps.settings.with_values(llm={"provider": "openai", "base_url": "http://127.0.0.1:9/v1"})
    verdict = Verdict(label="Not enough evidence", score=0.0, unweighted_score=0.0)
    choice, _ = plan(deps, NONE_BEARS, verdict, [NONE_BEARS])
    assert choice == {"action": "search", "queries": [QUERY]}
    assert deps.llm.bound_tools == ["SearchAgain", "StopSearching"]
    text = "\n".join(str(m.content) for m in deps.llm.calls[-1])
    assert prompts.load("reformulate_format_tools") in text and prompts.load("reformulate_format_json") not in text


def test_reformulate_prompts(make_deps):
    deps = make_deps([search_rule(QUERY)])
    verdict = Verdict(label="Weakly supported", score=0.33, unweighted_score=0.33, counted_sources=1)
    choice, _ = plan(deps, ONE_BEARS, verdict, [ONE_BEARS, "It is not true that salicylates protect the heart."])
    text = "\n".join(str(m.content) for m in deps.llm.calls[-1])
    assert prompts.load("reformulate_system") in text and f'Claim: "{ONE_BEARS}"' in text
    assert "found a single source that bears on the claim" in text
    assert "- It is not true that salicylates protect the heart." in text
    assert prompts.load("reformulate_format_json") in text and choice["queries"] == [QUERY]


@pytest.mark.parametrize("reply", ["not json", '{"action": "search"}', '{"queries": "aspirin"}'])
def test_an_unusable_reply_searches_nothing(make_deps, reply):
    deps = make_deps([{"when": "found too little", "reply": reply}])
    out = reformulate({"claim": NONE_BEARS, "searched": [NONE_BEARS]}, Runtime(context=deps))
    assert "queries" not in out and out["rounds"] == 1


def test_a_reply_cut_inside_its_list_keeps_the_complete_queries(make_deps):
    cut = ('{\n  "action": "search",\n  "queries": [\n    "statins and heart attacks",\n'
           '    "statins and \\"MI\\"",\n    "stat')
    deps = make_deps([{"when": "found too little", "reply": cut}])
    out = reformulate({"claim": NONE_BEARS, "searched": [NONE_BEARS]}, Runtime(context=deps))
    assert out["round_queries"] == ["statins and heart attacks", 'statins and "MI"']
