"""A claim in another language (agent.translate, tools/text/language.py): recognised offline, translated into English
by the LLM for search and judgement, the user's words kept beside the English claim; an English claim takes no
step; a translation that is not English or changes a number is not kept, and the claim is checked as typed with a
note. With the scripted model and the tiny corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from agent.followup.graph import build_thread_graph
from agent.llm.scripted import ScriptedChatModel
from agent.translate import in_english
from tests.unit.test_correct import DownModel
from tests.unit.test_followup import CHECK_RULES, CLAIM, VERIFIER_RULES
from tools.text.language import language_of

GERMAN = "Der MMR-Impfstoff verursacht Autismus."


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Makrolide schützen vor Herzinfarkt.", "de"),
        ("Las vacunas causan autismo.", "es"),
        ("La vitamine D prévient les fractures.", "fr"),
        ("A vitamina D previne fraturas.", "pt"),
        ("Vaccines cause autism.", "en"),  # py3langid reads this one as French
        ("ALDH1 expression predicts poor prognosis.", "en"),
        ("Macrolides protect against myocardial infarction.", "en"),  # reads as French 0.57 to Lingua
        ("12.5 %", "en"),  # nothing to tell by: English, as before
    ],
)
def test_the_language_is_recognised_offline(text: str, code: str):
    assert language_of(text) == code


def translating(english: str) -> ScriptedChatModel:
    return ScriptedChatModel(rules=[{"when": "Translate the claim into English",
                                     "reply": json.dumps({"english": english})}])


def test_another_language_is_checked_in_english_and_english_takes_no_step():
    llm = translating(CLAIM)
    got = in_english(llm, GERMAN)
    assert (got.claim, got.language, got.translated, got.note) == (CLAIM, "de", True, "")
    assert "German" in str(llm.calls[-1][-1].content) and GERMAN in str(llm.calls[-1][-1].content)
    calls = len(llm.calls)
    assert in_english(llm, CLAIM) == (CLAIM, "en", False, in_english(llm, CLAIM).usage, "")
    assert len(llm.calls) == calls  # no LLM call for an English claim


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Der MMR-Impfstoff verursacht Autismus.", "gave it back unchanged"),
        ("Der MMR-Impfstoff verursacht wirklich Autismus.", "could not be kept"),  # not English
        ("The MMR vaccine causes autism in 12 of 10 children.", "could not be kept"),  # a number the claim lacks
        ("", "could not be kept"),
    ],
)
def test_a_translation_that_cannot_stand_for_the_claim_is_not_kept(reply: str, why: str):
    got = in_english(translating(reply), GERMAN)
    assert (got.claim, got.translated) == (GERMAN, False) and why in got.note and "German" in got.note


def test_without_the_llm_the_claim_is_checked_as_typed_and_says_so():
    got = in_english(DownModel(rules=[]), GERMAN)
    assert (got.claim, got.translated) == (GERMAN, False) and "could not translate" in got.note
    assert not in_english(None, GERMAN).translated and "no LLM" in in_english(None, GERMAN).note


def test_the_chat_checks_the_english_claim_and_keeps_the_users_words(make_deps: Any):
    deps = make_deps([{"when": "Translate the claim into English", "reply": json.dumps({"english": CLAIM})},
                      *CHECK_RULES], verifier_rules=VERIFIER_RULES)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-de"}}
    state = graph.invoke({"message": GERMAN}, cfg, context=deps)
    (result,) = state["results"]
    assert (state["query"], state["language"]) == (CLAIM, "de")
    assert (result["claim"], result["asked"], result["language"]) == (CLAIM, GERMAN, "de")
    assert result["verdict"]["label"] == "Generally refuted"  # judged on the English claim, as the English check is
    own = graph.invoke({"message": GERMAN, "verbatim": True}, cfg, context=deps)  # "Check my words instead"
    assert own["results"][-1]["claim"] == GERMAN and own["results"][-1]["asked"] == ""
