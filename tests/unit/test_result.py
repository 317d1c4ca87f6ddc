"""The JSON contract of a check (`claimtrace ask --json`, the thread, feedback and eval records): its keys are
pinned, so that a renamed or dropped field fails here before it breaks a consumer."""

from __future__ import annotations

from agent.provenance import run_info
from agent.result import CheckResult
from agent.service import run_claim
from tests.conftest import decompose_rule, direction_rules

TOP = {"id", "claim", "queries", "opposite", "summary", "answer", "sentences", "original_answer", "corrections",
       "sources", "assessments", "verdict", "llm", "timings", "notes", "silent", "run", "earlier", "asked", "language"}
SENTENCE = {"text", "citations", "status", "flagged", "score", "reason", "invalid_citations", "attribution", "revision",
            "original", "translation"}
CORRECTION = {"position", "original", "citations", "invalid_citations", "status", "reason", "action", "text"}
SOURCE = {"n", "doc_id", "title", "sentence", "sentence_index", "context", "section", "neighbours", "url", "year",
          "doi", "pmid", "venue", "stance", "design", "design_basis", "retracted", "notices", "label", "reputation",
          "reputation_inputs", "stance_confidence", "p_claim", "page", "supplement", "supplement_note"}
VERDICT = {"label", "score", "unweighted_score", "counted_sources", "confidence", "supporting", "contradicting",
           "irrelevant", "leaning", "provisional", "awaiting", "unread", "weak_designs"}
RUN = {"checked_at", "models", "settings"}
LLM = {"calls", "prompt_tokens", "completion_tokens", "cached_tokens", "cut_replies"}


def test_the_json_keys_are_the_contract(make_deps):
    deps = make_deps(
        [
            decompose_rule(["Is MMR vaccination linked to autism?"], "The MMR vaccine does not cause autism."),
            *direction_rules("The MMR vaccine causes autism.", supports=False),
            {"when": "<evidence>", "reply": "Large studies found no link between MMR and autism [1]."},
        ],
        verifier_rules={"not associated": "contradicts", "no relationship": "contradicts"},
    )
    state = run_claim("The MMR vaccine causes autism.", deps)
    result = CheckResult.from_state(state, run_info(deps.settings, deps.llm)).model_dump(mode="json")
    assert set(result) == TOP
    assert result["sentences"] and all(set(s) == SENTENCE for s in result["sentences"])
    assert result["sources"] and all(set(s) == SOURCE for s in result["sources"])
    assert set(result["verdict"]) == VERDICT and set(result["llm"]) == LLM and set(result["run"]) == RUN
    assert result["run"]["checked_at"] and result["run"]["models"]["llm"]
    assert set(result["sentences"][0]["attribution"][0]) == {"source", "sentence", "score"}
    assert result["corrections"] and all(set(c) == CORRECTION for c in result["corrections"])
    assert result["summary"].startswith("Refuted by ") and result["verdict"]["label"] == "Generally refuted"
    assert result["answer"].startswith(result["summary"])


def test_a_dump_reads_back_as_the_same_result(make_deps):
    deps = make_deps(
        [
            decompose_rule([], "The MMR vaccine does not cause autism."),
            *direction_rules("The MMR vaccine causes autism.", supports=False),
            {"when": "<evidence>", "reply": "No link [1]."},
        ],
        verifier_rules={"not associated": "contradicts"},
    )
    result = CheckResult.from_state(run_claim("The MMR vaccine causes autism.", deps))
    again = CheckResult.model_validate(result.model_dump(mode="json"))
    assert again == result
    cited = again.cited_sources(again.sentences[0])
    # every sentence of the cited papers, and nothing else
    assert {s.n for s in cited} == set(again.sentences[0].citations) and again.source(99) is None
    assert cited == [s for n in again.sentences[0].citations for s in again.paper(n)] and again.paper(99) == []
