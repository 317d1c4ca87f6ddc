"""A claim in another language checked against the English literature: the LLM turns it into English, and the English
claim is what is searched, judged and answered; the user's words and their language are kept beside it
(CheckResult.asked, CheckResult.language). An English claim (tools.text.language.language_of) takes no step.

A translation is kept only when it is English and keeps the claim's numbers; otherwise, or without the LLM, the
claim is checked as typed, and a note says why."""

from __future__ import annotations

from typing import NamedTuple

from langchain_core.language_models import BaseChatModel

import prompts
from agent.llm.calls import chat, parse_json_object
from agent.llm.client import LLMUnavailableError
from agent.state import Usage
from tools.text.distortion import numbers
from tools.text.language import ENGLISH, LANGUAGES, language_of

TRANSLATE_TOKENS = 160
MAX_GROWTH = 3  # a translation more than this many times the claim's length is no translation


class InEnglish(NamedTuple):
    """The claim to check (English, or the words as typed when no translation could be kept), the language it came
    in, whether ``claim`` is a translation, the LLM's usage, and a note for the user ("" when all went well)."""

    claim: str
    language: str
    translated: bool
    usage: Usage
    note: str = ""


def kept(english: str, claim: str) -> bool:
    """Whether a translation may stand for the claim: English, not empty, not far longer, the same numbers."""
    if not english or len(english) > MAX_GROWTH * len(claim) + 20:
        return False
    return language_of(english) == ENGLISH and sorted(numbers(english)) == sorted(numbers(claim))


def in_english(llm: BaseChatModel | None, claim: str) -> InEnglish:
    """The claim as it is checked: itself when English; else the LLM's English translation when it can be kept."""
    language = language_of(claim)
    if language == ENGLISH:
        return InEnglish(claim, ENGLISH, False, Usage())
    name = LANGUAGES[language]
    if llm is None:
        return InEnglish(claim, language, False, Usage(), f"the claim is in {name} and no LLM could translate it; "
                         "it is checked as typed against English literature, which may find little")
    try:
        reply, usage = chat(llm, prompts.load("translate_system"), prompts.render("translate", language=name,
                            claim=claim), json_mode=True, max_tokens=TRANSLATE_TOKENS)
    except LLMUnavailableError as e:
        return InEnglish(claim, language, False, Usage(), f"the claim is in {name}; the LLM could not translate it "
                         f"({e}), so it is checked as typed")
    english = (parse_json_object(reply) or {}).get("english")
    english = " ".join(english.split()) if isinstance(english, str) else ""
    if english.casefold() == " ".join(claim.split()).casefold():
        return InEnglish(claim, language, False, usage, f"the claim may be in {name}; the LLM gave it back unchanged, "
                         "so it is checked as typed")
    if not kept(english, claim):
        return InEnglish(claim, language, False, usage, f"the claim is in {name}; the LLM's English version could "
                         "not be kept (not English, or a number changed), so it is checked as typed")
    return InEnglish(english, language, True, usage)
