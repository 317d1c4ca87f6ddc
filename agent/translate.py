"""A claim in another language checked against the English literature: the LLM turns it into English, and the English
claim is what is searched, judged and answered; the user's words and their language are kept beside it
(CheckResult.asked, CheckResult.language). An English claim (tools.text.language.language_of) takes no step.

A translation is kept only when it is English and keeps the claim's numbers, in digits and in words
(tools.text.quantities: "ein Drittel" must not become "a quarter"); otherwise, or without the LLM, the claim is
checked as typed, and a note says why.

The answer goes the other way (`answer_in`): its sentences are written and checked in English, then the LLM translates
them into the claim's language for the user to read, each kept only when it is in that language and keeps its
numbers, in digits and in words. A translation is never what was checked; the chat and `ask` say so and show the
English as checked under it."""

from __future__ import annotations

import re
from typing import NamedTuple

from langchain_core.language_models import BaseChatModel

import prompts
from agent.llm.calls import chat, parse_json_object
from agent.llm.client import LLMUnavailableError
from agent.state import AnswerSentence, Usage
from tools.text.language import ENGLISH, LANGUAGES, language_of
from tools.text.quantities import same_quantities

TRANSLATE_TOKENS = 160
SENTENCE_TOKENS = 90  # the reply's room for each answer sentence translated
MAX_GROWTH = 3  # a translation more than this many times the claim's length is no translation


class InEnglish(NamedTuple):
    """The claim to check (English, or the words as typed when no translation could be kept), the language it came
    in, whether ``claim`` is a translation, the LLM's usage, and a note for the user ("" when all went well)."""

    claim: str
    language: str
    translated: bool
    usage: Usage
    note: str = ""


def same_digits(a: str, b: str) -> bool:
    """Whether two texts hold the same runs of digits: "1.5" and "1,5", "1,000" and "1.000" are the same number."""
    return sorted(re.findall(r"\d+", a)) == sorted(re.findall(r"\d+", b))


def kept(english: str, claim: str, language: str) -> bool:
    """Whether a translation may stand for the claim, in ``language``: English, not empty, not far longer, the same
    numbers in digits (a decimal comma read as the point it is in English) and in words."""
    if not english or len(english) > MAX_GROWTH * len(claim) + 20:
        return False
    return language_of(english) == ENGLISH and same_digits(english, claim) and same_quantities(english, claim, language)


def in_english(llm: BaseChatModel | None, claim: str, template: str | None = None) -> InEnglish:
    """The claim as it is checked: itself when English; else the LLM's English translation when it can be kept.
    ``template`` is a text to use instead of ``prompts/translate.md`` (evals.language.translation compares an
    earlier version of it)."""
    language = language_of(claim)
    if language == ENGLISH:
        return InEnglish(claim, ENGLISH, False, Usage())
    name = LANGUAGES[language]
    if llm is None:
        return InEnglish(claim, language, False, Usage(), f"the claim is in {name} and no LLM could translate it; "
                         "it is checked as typed against English literature, which may find little")
    try:
        user = prompts.render_text(template or prompts.load("translate"), "translate", language=name, claim=claim)
        reply, usage = chat(llm, prompts.load("translate_system"), user, json_mode=True, max_tokens=TRANSLATE_TOKENS)
    except LLMUnavailableError as e:
        return InEnglish(claim, language, False, Usage(), f"the claim is in {name}; the LLM could not translate it "
                         f"({e}), so it is checked as typed")
    english = (parse_json_object(reply) or {}).get("english")
    english = " ".join(english.split()) if isinstance(english, str) else ""
    if english.casefold() == " ".join(claim.split()).casefold():
        return InEnglish(claim, language, False, usage, f"the claim may be in {name}; the LLM gave it back unchanged, "
                         "so it is checked as typed")
    if not kept(english, claim, language):
        return InEnglish(claim, language, False, usage, f"the claim is in {name}; the LLM's English version could "
                         "not be kept (not English, or a number changed), so it is checked as typed")
    return InEnglish(english, language, True, usage)


def own_english(claim: str, english: str) -> InEnglish:
    """The user's own English for ``claim``, checked in place of the LLM's translation, their words and language kept
    (`claimtrace ask --english`, MCP's ``english``; the chat's "Correct the English"). ValueError, with the reason,
    when ``claim`` is English or ``english`` is not."""
    language = language_of(claim)
    if language == ENGLISH:
        raise ValueError("the claim is already in English: your own English is for a claim in another language")
    if language_of(english) != ENGLISH:
        raise ValueError("your own English for the claim is not in English")
    return InEnglish(english, language, True, Usage())


def quotes(sentence: AnswerSentence) -> bool:
    """Whether the sentence quotes a paper: quotes stay in the paper's words."""
    return sentence.revision == "replaced" or '"' in sentence.text or "\u201c" in sentence.text


def answer_in(
    llm: BaseChatModel | None, sentences: list[AnswerSentence], language: str
) -> tuple[list[AnswerSentence], Usage, str]:
    """The answer's sentences with their translation into ``language`` (AnswerSentence.translation), from one LLM
    call, and a note ("" when all went well). A sentence keeps "" (shown in English) when it quotes a paper or its
    translation is not in ``language``, grows far longer or changes a number; nothing is asked for an English claim."""
    wanted = [k for k, s in enumerate(sentences) if not quotes(s)]
    if language == ENGLISH or not wanted:
        return sentences, Usage(), ""
    name = LANGUAGES[language]
    if llm is None:
        return sentences, Usage(), f"no LLM could translate the answer into {name}; it is shown in English"
    numbered = "\n".join(f"{k + 1}: {sentences[k].text}" for k in wanted)
    try:
        reply, usage = chat(llm, prompts.load("translate_answer_system"),
                            prompts.render("translate_answer", language=name, sentences=numbered), json_mode=True,
                            max_tokens=SENTENCE_TOKENS * len(wanted))
    except LLMUnavailableError as e:
        return sentences, Usage(), f"the LLM could not translate the answer into {name} ({e}); it is shown in English"
    got = parse_json_object(reply) or {}
    out, missed = list(sentences), 0
    for k in wanted:
        text = got.get(str(k + 1))
        text = " ".join(text.split()) if isinstance(text, str) else ""
        english = sentences[k].text
        if (text and text.casefold() != english.casefold() and len(text) <= MAX_GROWTH * len(english) + 20
                and same_digits(text, english) and same_quantities(english, text, language)
                and language_of(text) == language):
            out[k] = sentences[k].model_copy(update={"translation": text})
        else:
            missed += 1
    note = (f"{missed} of the answer's {len(wanted)} sentence(s) could not be kept in {name} (the LLM's translation "
            "was missing, not in that language, or changed a number); they are shown in English") if missed else ""
    return out, usage, note
