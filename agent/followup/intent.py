"""Requests answered without the LLM: "what are the sources behind sentence 2?" and its variants, "why is the
verdict what it is?" (or how sure it is, or what would change it), answered from the check's own figures, and a new
claim typed after a check, checked as typed."""

from __future__ import annotations

import re

from tools.text.claim_rules import checkable

_ASKS_SOURCES = re.compile(r"\b(sources?|evidence|cit\w*|behind|support\w*|references?|based)\b", re.IGNORECASE)
_NUMBERED = re.compile(r"\bsentence\s*(?:#|no\.?|number)?\s*([-+]?\d+)\b", re.IGNORECASE)
# "sources of sentence abc" ending the message: a reference that is no number ("evidence on the sentence about
# mice" or "evidence supports a longer prison sentence" are not one)
_NAMED = re.compile(
    r"\b(?:sources?|evidence|citations?|references?)\s+(?:of|for|behind|on|to)\s+(?:the\s+)?"
    r"sentence\s*(?:#|no\.?|number)?\s+([^\W\d_]+)\W*$",
    re.IGNORECASE,
)
MAX_DIGITS = 9
_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def asked_sentence(text: str) -> int | str | None:
    """The answer sentence whose sources the user asks for: its number as written (1-based; 0, negative or too
    large when the user wrote so), the user's words for it when they are no number ("sentence abc") or a number of
    more than MAX_DIGITS digits, or None when the message asks for something else."""
    if not _ASKS_SOURCES.search(text):
        return None
    if match := _NUMBERED.search(text):
        written = match.group(1)  # a number too long to be stored (the checkpoint holds 64-bit integers) stays text
        return int(written) if len(written.lstrip("+-")) <= MAX_DIGITS else written
    if match := _NAMED.search(text):
        word = match.group(1).lower()
        return _WORDS.index(word) + 1 if word in _WORDS else match.group(1)
    return None


# "why is it refuted?", "why this verdict?", "how sure are you?", "what would change the verdict?"; a "why" about
# something else ("why does smoking cause cancer?") is a question for the evidence, not for the reckoning
_WHY = re.compile(
    r"\bwhy\b[^?.!]{0,40}\b(verdict|label|badge|it|this|that|refuted|supported|undecided|controversial|disputed|"
    r"confiden\w*|decide\w*|enough)\b(?!\s+\w+\s+(cause|lead|increase|reduce|affect)\w*)"
    r"|\bhow (sure|confident|certain)\b|\bwhat would (change|flip|overturn|reverse)\b"
    r"|\bhow (was|is|did) (the|this|that|it) (verdict|label)\b|\bexplain (the|this|that|your) (verdict|label)\b",
    re.IGNORECASE,
)


def asks_why(text: str) -> bool:
    """Whether the message asks how the verdict was reached, how sure it is, or what would change it."""
    return bool(_WHY.search(text))


# a message that asks the assistant to do something ("explain sentence 3 in simpler words") or points at the check
# held ("the second paper", "[2]", "your answer") is about that check, whatever relation words it holds
_REQUEST_HEAD = re.compile(
    r"^\s*(please\b|explain|tell|show|give|list|summari[sz]e|compare|describe|clarify|rephrase|translate|expand|"
    r"elaborate|define|check|search|find|look|can|could|would|will|should|do|does|did|is|are|was|were|what|which|"
    r"who|whom|whose|when|where|why|how|and|but|so|ok|okay|thanks|thank)\b",
    re.IGNORECASE,
)
_ABOUT_THE_CHECK = re.compile(
    r"\b(sentence|paper|papers|source|sources|verdict|answer|citation|citations|reference|you|your|yours)\b"
    r"|\bthe (study|studies|trial|trials|review|evidence|first|second|third|last|other|same)\b|\[\d+\]",
    re.IGNORECASE,
)


def states_claim(text: str) -> bool:
    """Whether the message states a new checkable finding (tools.text.claim_rules: a relation stated as fact, not a
    question, an aim or a hedge) rather than asking about the check held: such a message is checked exactly as
    typed, and the router never rewrites it."""
    if _REQUEST_HEAD.search(text) or _ABOUT_THE_CHECK.search(text):
        return False
    return checkable(text)[0]
