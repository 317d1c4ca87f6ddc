"""The generated summary of each paper (agent.answer.supplement, agent.followup.supplement): the LLM reads the whole
abstract and the shown sentences; a summary its abstract does not support is dropped with the reason; the thread
keeps and streams the check's answer before any summary is written; time and a down LLM stop the writing with a
note; every view labels the summary as generated."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from dataclasses import replace
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

import prompts
from agent.answer.supplement import supplement, supplemented
from agent.followup.graph import build_thread_graph
from agent.followup.state import checks
from agent.llm.client import LLMUnavailableError
from agent.result import CheckResult
from agent.state import Deps, Evidence
from tests.conftest import RuleVerifier
from tests.unit.test_followup import CHECK_RULES, CLAIM, VERIFIER_RULES
from ui.chat.render import paper_detail, papers_lines
from ui.export.markdown import report_markdown
from ui.shared.supplement import GENERATED, NONE
from ui.shared.untrusted import md
from ui.terminal.readable import print_readable

MMR = "Measles-mumps-rubella vaccination and autism: a nationwide cohort study"
KEPT = "A nationwide cohort of children born in Denmark from 1999 through 2010 was followed for autism."
UNSUPPORTED = "A meta-analysis found that vaccination was linked to autism."
# the sentence verifier: the Danish cohort's sentence on who was followed supports the kept context; the
# meta-analysis's null findings contradict the unsupported one
SENTENCE_RULES = {"born in Denmark": "supports", **VERIFIER_RULES}


def rules_for_papers() -> list[dict[str, Any]]:
    """The context of the Danish cohort (its abstract holds "657,461 children") and of any other paper (the
    meta-analysis), before the check's own rules."""
    return [
        {"when": "657,461 children", "reply": KEPT},
        {"when": "situate these sentences", "reply": UNSUPPORTED},
    ]


def deps_with_contexts(make_deps: Any, extra: list[dict[str, Any]] | None = None, **judge: Any) -> Deps:
    deps = make_deps([*(extra or []), *rules_for_papers(), *CHECK_RULES], verifier_rules=VERIFIER_RULES)
    settings = deps.settings.with_values(judge={"supplement": True, **judge})
    return replace(deps, settings=settings, sentence_verifier=RuleVerifier(SENTENCE_RULES))


def mmr_sentences(deps: Deps) -> list[str]:
    return list(deps.index.docs["101"].sentences)


def test_the_llm_reads_the_whole_abstract_and_the_shown_sentences(make_deps: Any):
    deps = deps_with_contexts(make_deps)
    sentences = mmr_sentences(deps)
    written = supplement(deps.llm, deps.answer_verifier, "101", MMR, sentences, [3])
    system, user = (str(m.content) for m in deps.llm.calls[-1])
    assert system == prompts.load("supplement_system")
    document = user.split("<document>")[1].split("</document>")[0]
    chunk = user.split("<chunk>")[1].split("</chunk>")[0]
    assert MMR in document and all(s in document for s in sentences)  # the whole abstract, every sentence
    assert chunk.strip() == sentences[3]  # the shown sentence alone
    assert written.text == KEPT and not written.note and written.usage.calls == 1


def test_a_context_its_abstract_does_not_support_is_dropped_with_the_sentence_and_why(make_deps: Any):
    deps = deps_with_contexts(make_deps)
    written = supplement(deps.llm, deps.answer_verifier, "102", "Vaccines meta-analysis",
                         list(deps.index.docs["102"].sentences), [2])
    assert written.text == ""
    assert written.note.startswith(f'the abstract does not support it: "{UNSUPPORTED}"')
    assert "contradicts this sentence" in written.note


def test_a_context_that_drops_a_negation_of_its_abstract_is_dropped(make_deps: Any):
    """The verifier reads the topic and passes it; the answer's distortion check does not."""
    flipped = "MMR vaccination was associated with an increased risk of autism (hazard ratio 0.93)."
    deps = make_deps([{"when": "situate these sentences", "reply": flipped}])
    deps = replace(deps, sentence_verifier=RuleVerifier({"MMR vaccination": "supports"}))
    written = supplement(deps.llm, deps.answer_verifier, "101", MMR, mmr_sentences(deps), [3])
    assert written.text == "" and "negation" in written.note


def test_the_thread_keeps_and_streams_the_answer_before_any_context(make_deps: Any):
    deps = deps_with_contexts(make_deps)
    graph = build_thread_graph(InMemorySaver())
    cfg = {"configurable": {"thread_id": "t-1"}}
    seen: list[tuple[str, Any]] = []
    for mode, data in graph.stream({"message": CLAIM}, cfg, context=deps, stream_mode=["updates", "custom"]):
        if mode == "custom":
            seen.append(("context", data["supplement"]))
        elif "check" in data or "supplement" in data:
            seen.append((next(iter(data)), data))
    kinds = [k for k, _ in seen]
    assert kinds[0] == "check" and kinds[-1] == "supplement" and "context" in kinds
    checked = seen[0][1]["check"]["results"][0]
    assert all(not s["supplement"] and not s["supplement_note"] for s in checked["sources"])  # shown as it was
    (result,) = graph.get_state(cfg).values["results"]  # amended in place, not kept twice
    assert result["id"] == checked["id"] and result["answer"] == checked["answer"]
    by_doc = {s["doc_id"]: s for s in result["sources"]}
    assert by_doc["101"]["supplement"] == KEPT and not by_doc["101"]["supplement_note"]
    events = {e["paper"]: e for k, e in seen if k == "context"}
    assert events[by_doc["101"]["n"]]["text"] == KEPT
    assert "102" in by_doc  # the meta-analysis: its context says what its abstract does not
    assert by_doc["102"]["supplement"] == "" and by_doc["102"]["supplement_note"].startswith(
        "the abstract does not support it")
    assert any("1 paper(s) had their generated summary dropped" in n for n in result["notes"])
    papers = len(by_doc)
    assert result["llm"]["calls"] == checked["llm"]["calls"] + papers  # one call per paper
    assert "supplement" in result["timings"]


def test_time_ran_out_leaves_the_papers_after_with_a_note(make_deps: Any):
    slow = [{"when": "657,461 children", "reply": KEPT, "delay_s": 0.2}]
    deps = deps_with_contexts(make_deps, slow, supplement_seconds=0.1)
    evidence = [
        Evidence(n=1, doc_id="101", title=MMR, sentence=mmr_sentences(deps)[3], sentence_index=3),
        Evidence(n=2, doc_id="102", title="Meta", sentence=deps.index.docs["102"].sentences[2], sentence_index=2),
    ]
    out, usage, notes = supplemented(evidence, deps)
    assert out[0].supplement == KEPT
    assert out[1].supplement == "" and "SUPPLEMENT_SECONDS=0.1) ran out" in out[1].supplement_note
    assert usage.calls == 1 and notes == ["supplement: 1 paper(s) have no generated summary: the time for writing "
                                          "them ran out"]


def test_a_down_llm_is_asked_once_and_every_paper_says_why(make_deps: Any, monkeypatch: Any):
    asked: list[str] = []

    def down(*args: Any, **_: Any) -> Any:
        asked.append(args[2])
        raise LLMUnavailableError("the LLM is unreachable (connection refused)")

    monkeypatch.setattr("agent.answer.supplement.chat", down)
    deps = deps_with_contexts(make_deps)
    evidence = [
        Evidence(n=1, doc_id="101", title=MMR, sentence=mmr_sentences(deps)[3], sentence_index=3),
        Evidence(n=2, doc_id="102", title="Meta", sentence=deps.index.docs["102"].sentences[2], sentence_index=2),
    ]
    out, usage, notes = supplemented(evidence, deps)
    assert len(asked) == 1 and usage.calls == 0
    assert all(ev.supplement_note == "not written: the LLM is unavailable (the LLM is unreachable (connection "
                                     "refused))" for ev in out)
    assert notes == ["supplement: 2 paper(s) have no generated summary: the LLM is unavailable"]


def test_a_paper_the_index_no_longer_holds_is_not_asked(make_deps: Any):
    deps = deps_with_contexts(make_deps)
    gone = Evidence(n=1, doc_id="no-such-doc", title="Gone", sentence="A finding.", sentence_index=0)
    (out,), usage, _ = supplemented([gone], deps)
    assert out.supplement == "" and "no longer holds its abstract" in out.supplement_note and usage.calls == 0
    assert not deps.llm.calls


def test_off_it_writes_nothing(make_deps: Any):
    deps = deps_with_contexts(make_deps, supplement=False)
    graph = build_thread_graph(InMemorySaver())
    cfg = {"configurable": {"thread_id": "t-2"}}
    (result,) = graph.invoke({"message": CLAIM}, cfg, context=deps)["results"]
    assert all(not s["supplement"] and not s["supplement_note"] for s in result["sources"])
    assert not any("situate these sentences" in str(m.content) for call in deps.llm.calls for m in call)


def test_a_check_with_the_id_the_thread_holds_replaces_it_and_any_other_is_added():
    first, second = {"id": "a", "claim": "x"}, {"id": "b", "claim": "y"}
    held = checks([], [first, second])
    assert checks(held, [{"id": "a", "claim": "x, amended"}]) == [{"id": "a", "claim": "x, amended"}, second]
    assert checks(held, [{"claim": "an older dump without an id"}])[-1] == {"claim": "an older dump without an id"}


def shown_result(make_deps: Any) -> dict[str, Any]:
    deps = deps_with_contexts(make_deps)
    graph = build_thread_graph(InMemorySaver())
    (result,) = graph.invoke({"message": CLAIM}, {"configurable": {"thread_id": "t-3"}}, context=deps)["results"]
    return result


def test_every_view_labels_the_summary_as_generated(make_deps: Any):
    result = shown_result(make_deps)
    mmr = [s for s in result["sources"] if s["doc_id"] == "101"]
    assert f"_{GENERATED}:_ {md(KEPT)}" in papers_lines(result["sources"])  # the answer's sources in the chat
    assert f"_{GENERATED}:_ {md(KEPT)}" in paper_detail(mmr, 5)  # the side panel
    out = io.StringIO()
    with redirect_stdout(out):
        print_readable(result)
    assert f"{GENERATED}: {KEPT}" in out.getvalue()  # the terminal
    report = report_markdown(CheckResult.model_validate(result))
    assert f"- {GENERATED}: {md(KEPT)}" in report  # the exports
    others = [s for s in result["sources"] if s["doc_id"] != "101"]
    assert others  # a dropped summary: the panel says why, the answer's list shows nothing in its place
    assert f"_{NONE}:_ the abstract does not support it" in paper_detail(others, 5)
    assert UNSUPPORTED not in papers_lines(others)


def test_the_chat_writes_the_contexts_after_the_check_in_a_run_of_their_own(make_deps: Any):
    """The chat stops the thread's run after `check` (its queue slot is then freed) and resumes it for the translation
    of a claim in another language and the summaries; a thread whose summaries were never written takes the next
    message as a new turn."""
    deps = deps_with_contexts(make_deps)
    graph = build_thread_graph(InMemorySaver())
    cfg = {"configurable": {"thread_id": "t-4"}}
    graph.invoke({"message": CLAIM}, cfg, context=deps, interrupt_after=["check"])
    assert graph.get_state(cfg).next == ("translate",)
    (checked,) = graph.get_state(cfg).values["results"]
    assert all(not s["supplement"] for s in checked["sources"])
    graph.invoke(None, cfg, context=deps)  # the summaries, in a run of their own
    (result,) = graph.get_state(cfg).values["results"]
    assert any(s["supplement"] == KEPT for s in result["sources"]) and graph.get_state(cfg).next == ()
    # a check whose summaries were never written: the next message is a turn of its own
    graph.invoke({"message": CLAIM}, cfg, context=deps, interrupt_after=["check"])
    state = graph.invoke({"message": "what are the sources behind sentence 1?"}, cfg, context=deps)
    assert state["reply"]["kind"] == "sources" and len(state["results"]) == 2


class Sent:
    """The answer message as the chat sent it (a stand-in for Chainlit's Message)."""

    def __init__(self) -> None:
        self.content = ""
        self.updates: list[str] = []

    async def update(self) -> None:
        self.updates.append(self.content)


def test_the_chat_answer_says_contexts_are_coming_then_shows_each_or_why_not(make_deps: Any):
    import asyncio

    from ui.chat.answer_stream import WRITING, AnswerStream

    result = shown_result(make_deps)
    kept = {**result, "sources": [{**s, "supplement": "", "supplement_note": ""} for s in result["sources"]]}
    stream = AnswerStream(0, [])
    stream.result, stream.message = kept, Sent()  # type: ignore[assignment]
    papers = sorted({s["n"] for s in kept["sources"]})
    assert WRITING.format(done=0, of=len(papers)) in stream.content()
    first = next(s for s in result["sources"] if s["doc_id"] == "101")
    asyncio.run(stream.summary({"result": result["id"], "paper": first["n"], "text": KEPT, "note": ""}))
    shown = stream.message.updates[-1]
    assert md(KEPT) in shown and WRITING.format(done=1, of=len(papers)) in shown
    asyncio.run(stream.summary({"result": "another check", "paper": first["n"], "text": "not this one", "note": ""}))
    assert len(stream.message.updates) == 1  # a summary of another check is not this answer's
    asyncio.run(stream.failed("RuntimeError: the verifier broke"))
    assert md("could not be written (RuntimeError: the verifier broke)") in stream.message.updates[-1]
    assert "is writing a short summary" not in stream.message.updates[-1]

