"""A passage in another language, read in English: the LLM translates its sentences into English one at a time
(agent.translate.in_english, each kept only when it is English and keeps its numbers), so that the claim rules read
it and its claims are searched and judged in English, as a claim typed in another language is. Each English sentence
remembers the sentence it came from, so that every claim found keeps the user's own words, and its check is
answered in their language (agent.passage.check.finish). An English text takes no step."""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from langchain_core.language_models import BaseChatModel

from agent.state import Usage
from agent.translate import in_english
from tools.text.i18n import written
from tools.text.language import ENGLISH, LANGUAGES, language_of
from tools.text.passage import read_passage

MAX_SENTENCES = 12  # sentences translated: about 4 s each with the embedded LLM on 2 cores
VOTE_CHARS = 4000  # the head of a text whose sentences vote on its language: a dozen sentences, read in milliseconds


class EnglishText(NamedTuple):
    """The text as it is read (its sentences in English, the reference list as written), the language it came in,
    each English sentence's span in ``text`` with the sentence it translates, the LLM's usage and notes."""

    text: str
    language: str
    origins: list[tuple[int, int, str]]
    usage: Usage
    notes: list[str]
    whole: bool = True  # every sentence is in ``text`` in English: none was left untranslated or unread

    def asked(self, start: int, end: int) -> str:
        """The user's words behind the English characters ``start``..``end``: the sentences they translate."""
        return " ".join(words for a, b, words in self.origins if a < end and start < b)


def sentence_count(text: str) -> int:
    return len(read_passage(text).sentences)


def distinct_sentences(text: str, limit: int = MAX_SENTENCES) -> list[str]:
    """The first ``limit`` different sentences of the text's head (one sentence pasted many times is one)."""
    seen: dict[str, str] = {}
    for sentence in read_passage(text[:VOTE_CHARS]).sentences:
        seen.setdefault(" ".join(sentence.text.split()).casefold(), sentence.text)
        if len(seen) == limit:
            break
    return list(seen.values())


def passage_language(text: str) -> str:
    """The language most of the text's different sentences are in, each read as a claim is (language_of); English
    when no language has most. Read whole, a long text drifts: "Vitamin D reduces fractures." pasted five times
    reads as Spanish, as its Latin words add up."""
    votes = Counter(language_of(sentence) for sentence in distinct_sentences(text))
    if not votes:
        return ENGLISH
    language, count = votes.most_common(1)[0]
    return language if 2 * count > sum(votes.values()) else ENGLISH


def in_english_text(llm: BaseChatModel | None, text: str, max_sentences: int = MAX_SENTENCES) -> EnglishText:
    """The text with its first ``max_sentences`` sentences in English; an English text as it is."""
    language = passage_language(text)
    if language == ENGLISH:
        return EnglishText(text, ENGLISH, [], Usage(), [])
    passage = read_passage(text)
    name = LANGUAGES[language]
    parts: list[str] = []
    origins: list[tuple[int, int, str]] = []
    usage, kept_as_typed = Usage(), 0
    pos = 0
    for sentence in passage.sentences[:max_sentences]:
        got = in_english(llm, sentence.text)
        usage = usage + got.usage
        kept_as_typed += not got.translated
        parts.append(got.claim)
        origins.append((pos, pos + len(got.claim), sentence.text))
        pos += len(got.claim) + 1
    notes = [written("the text is in {language}: the LLM translated its sentences into English, one by one, and its "
                     "claims are read and checked in English, each shown with your own sentence", language=name)]
    if len(passage.sentences) > max_sentences:
        notes.append(written("the text has {n} sentences; the first {max} are translated and read, the rest are not",
                             n=len(passage.sentences), max=max_sentences))
    if kept_as_typed:
        notes.append(written("{n} sentence(s) could not be translated (no LLM, or its English could not be kept) and "
                             "are read as typed, which the English rules may not read as a finding", n=kept_as_typed))
    references = text[passage.body_end :].strip() if len(passage.sentences) <= max_sentences else ""
    english = " ".join(parts) + (f"\n\n{references}" if references else "")
    whole = not kept_as_typed and len(passage.sentences) <= max_sentences and not references
    return EnglishText(english, language, origins, usage, notes, whole)
