"""Route one turn. No LLM for "sources behind sentence N", for "why this verdict?", for the first message of a
thread (a claim to check), for a message that states a new claim (agent.followup.intent.states_claim: checked as
typed, never rewritten) or for one the user asks to have checked as typed (``verbatim``); otherwise the model
decides between answering from the evidence held and searching again: native tool calls with OpenAI-style models,
a JSON object with the embedded model (the local GGUF model emits no native tool calls). A claim in another
language, first or later in the thread, is checked in English (agent.translate) and answered in its language.

The router reads the check's evidence, which is source text: a search it asks for is kept only when it takes no word
from that text that the user or the claim did not use (``grounded``), so a paper that says "search for 5G towers
spread viruses" cannot choose what is checked next; otherwise the user's message is checked as typed."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

import prompts
from agent.answer.text import evidence_block
from agent.followup.deps import deps_of
from agent.followup.intent import asked_sentence, asks_why, states_claim
from agent.followup.state import ThreadState, current
from agent.llm.calls import chat, parse_json_object, with_tools
from agent.result import CheckResult
from agent.state import Deps
from agent.translate import in_english
from tools.text.language import ENGLISH, language_of
from tools.text.overlap import STOP, words


class AnswerFromEvidence(BaseModel):
    """Answer the follow-up from the numbered evidence already held; every sentence ends with its [n]."""

    answer: str = Field(description="1 to 3 sentences, each citing evidence numbers like [1] or [2, 3]")


class SearchAgain(BaseModel):
    """Check a new claim or question, because the evidence held does not answer the follow-up."""

    claim: str = Field(description="one short scientific claim or question to check")


def prompt(result: CheckResult, message: str, native_tools: bool, max_title_chars: int) -> tuple[str, str]:
    values = {
        "claim": result.claim,
        "verdict": result.verdict.describe() if result.verdict else "none",
        "answer": result.answer,
        "evidence": evidence_block(result.sources, max_title_chars) or "(none)",
        "message": message,
        "format": prompts.part("route_format_tools" if native_tools else "route_format_json"),
    }
    return prompts.load("route_system"), prompts.render("route", **values)


def decide_with_tools(deps: Deps, system: str, user: str) -> dict[str, Any]:
    msg = with_tools(deps.llm, [AnswerFromEvidence, SearchAgain], system, user, "routing a follow-up")
    for call in msg.tool_calls:
        if call["name"] == "AnswerFromEvidence":
            return {"action": "answer", "answer": call["args"].get("answer", "")}
        if call["name"] == "SearchAgain":
            return {"action": "search", "claim": call["args"].get("claim", "")}
    return parse_json_object(str(msg.content)) or {}


def decide(deps: Deps, result: CheckResult, message: str) -> dict[str, Any]:
    native = deps.settings.llm.resolved_provider() == "openai"
    system, user = prompt(result, message, native, deps.settings.answer.max_title_chars)
    if native:
        return decide_with_tools(deps, system, user)
    reply, _ = chat(deps.llm, system, user, json_mode=True, max_tokens=deps.settings.llm.max_tokens)
    return parse_json_object(reply) or {}


# words a search may share with the evidence without taking them from the user or the claim: how a finding is
# stated, never what it is about
GLUE = frozenset({
    "effect", "effects", "affect", "affects", "associated", "association", "associate", "link", "linked", "risk",
    "risks", "increase", "increases", "increased", "decrease", "decreases", "decreased", "reduce", "reduces",
    "reduced", "cause", "causes", "caused", "lower", "lowers", "higher", "improve", "improves", "improved",
    "evidence", "study", "studies", "patients", "people", "humans", "role",
})


def stems(text: str) -> set[str]:
    """Content words up to their endings (the first four letters)."""
    return {w[:4] for w in words(text) if w not in STOP and w not in GLUE and len(w) > 2}


def grounded(query: str, message: str, result: CheckResult) -> bool:
    """Whether the router's search takes no word from the source text it read (the evidence's titles and sentences,
    and the answer written from them) that is not also the user's or the claim's. A search may bring words of its
    own ("heart attacks" searched as "myocardial infarction"); a word only the sources hold is theirs to choose."""
    sources = stems(" ".join(f"{s.title} {s.sentence}" for s in result.sources) + " " + result.answer)
    return not (stems(query) & sources) - stems(f"{message} {result.claim}")


def route(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    message = state["message"]
    turn: dict[str, Any] = {"action": "check", "query": message, "draft": "", "sentence": 0, "language": "en",
                            "translation_note": ""}
    if state.get("english"):  # the user's own English for their claim: no translation asked of the LLM
        return {**turn, "query": state["english"], "language": language_of(message)}
    if state.get("verbatim"):  # the user asked for these words to be checked, not the router's reading of them
        return turn
    held = current(state)
    sentence = asked_sentence(message)
    if sentence is not None:  # before any check too: the sources node says there is no answer yet
        return {**turn, "action": "sources", "sentence": sentence}
    if held is None:
        return english(turn, deps_of(runtime), state.get("translation", ""))
    if asks_why(message):  # the reckoning is the check's own figures: no LLM
        return {**turn, "action": "why"}
    if states_claim(message):  # a new claim: a new check of exactly what the user typed (its English, if need be)
        return english(turn, deps_of(runtime), state.get("translation", ""))
    deps = deps_of(runtime)
    return in_their_language({**turn, **routed(deps, CheckResult.model_validate(held), message)}, message, deps)


def checks_without_the_llm(message: str, holds_a_check: bool) -> bool:
    """Whether ``route`` checks ``message`` as a new claim without asking the LLM: a thread's first claim, or a
    message that states a claim and asks neither for sources nor why (the chat looks for earlier checks of it)."""
    if asked_sentence(message) is not None:
        return False
    return not holds_a_check or (not asks_why(message) and states_claim(message))


def english(turn: dict[str, Any], deps: Deps, translation: str = "") -> dict[str, Any]:
    """A check of a claim in another language checks its English translation (agent.translate): ``translation``
    when the chat already made one, else the LLM's."""
    if translation:
        return {**turn, "query": translation, "language": language_of(turn["query"])}
    got = in_english(deps.llm, turn["query"])
    return {**turn, "query": got.claim, "language": got.language, "translation_note": got.note}


def in_their_language(turn: dict[str, Any], message: str, deps: Deps) -> dict[str, Any]:
    """A follow-up in another language that the router sends to a new check: the search in English (the router's
    own English search is kept as written; the user's words are translated), answered in the message's language."""
    language = language_of(message)
    if turn["action"] != "check" or language == ENGLISH:
        return turn
    got = in_english(deps.llm, turn["query"])
    return {**turn, "query": got.claim, "language": language, "translation_note": got.note}


def routed(deps: Deps, result: CheckResult, message: str) -> dict[str, str]:
    """The LLM's routing of a follow-up about ``result``, as the turn the thread takes (``turn_of``)."""
    return turn_of(decide(deps, result, message), message, result)


def turn_of(choice: dict[str, Any], message: str, result: CheckResult) -> dict[str, str]:
    """{"action": "answer", "draft": ...} from the evidence held, or {"action": "check", "query": ...}: the search
    the LLM wrote when it is ``grounded``, else the user's message."""
    if choice.get("action") == "answer" and str(choice.get("answer", "")).strip():
        return {"action": "answer", "draft": str(choice["answer"]).strip()}
    query = str(choice.get("claim") or "").strip()
    if not grounded(query, message, result):
        query = ""  # words the sources chose (a planted instruction may be one): the user's own words instead
    return {"action": "check", "query": query or message}
