"""Checks of an answer sentence that do not use the verifier: whether its words are in what it cites (the
independent support check), and whether it copies a title, restates the claim or copies the prompt.

* content-word support (tools.text.overlap.support_share): the share of the sentence's content words found in the
  sentences it cites; a sentence is supported when at least ``SUPPORT_SHARE`` of them are. It cannot see direction,
  so it is a floor, not a judge. (verify uses the same overlap to catch a sentence quoting an uncited source.)
* a copied title or a restated claim: a run of ``RUN`` consecutive words of the title (or the claim) that the
  cited sentences do not contain; for a claim shorter than ``RUN`` words, the whole claim (tools.text.overlap; verify
  flags a restated claim in the product, so shown answers should carry none).
* copied prompt text: the prompts' own phrases (the evidence tags and attributes, the verifier's stance phrases,
  any run of ``RUN`` words of an answer prompt's instructions).
* a copied passage: the extractive template's quote, or a sentence that is an evidence sentence nearly word for
  word (``COPY_SHARE`` of its content words, and most of the source's length): an answer made only of them reports
  nothing in its own words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import prompts
from agent.answer.compose import QUOTED
from tools.text.overlap import RUN, copies, runs, support_share, words

SUPPORT_SHARE = 0.75
COPY_SHARE = 0.9
PROMPT_MARKERS = ("<finding", "</finding", "stance=", "supports the claim", "contradicts the claim", "<evidence")


@lru_cache(maxsize=4)
def prompt_runs(names: Sequence[str] = ("answer", "answer_per_paper", "answer_hybrid", "correct")) -> set[str]:
    """The runs of ``RUN`` words of the answer prompts' own instructions (placeholders removed)."""
    out: set[str] = set()
    for name in names:
        text = re.sub(r"\{\w+\}", " ", prompts.load(name))
        out |= set(runs(words(text), RUN))
    return out


def copies_prompt(sentence: str, prompt: set[str]) -> bool:
    low = sentence.lower()
    mine = f" {' '.join(words(sentence))} "
    return any(m in low for m in PROMPT_MARKERS) or any(f" {r} " in mine for r in prompt)


def check_answer(
    claim: str, sources: Sequence[Mapping[str, Any]], shown: Sequence[Mapping[str, Any]]
) -> tuple[list[bool], dict[str, bool]]:
    """Every shown sentence's independent support (content words of what it cites), and whether the answer copies
    a title, restates the claim or copies prompt text. ``sources``: the numbered evidence (n, sentence, title)."""
    text_of: dict[int, str] = {}
    for ev in sources:  # the sentences of one paper share its number
        text_of[ev["n"]] = f"{text_of[ev['n']]} {ev['sentence']}" if ev["n"] in text_of else ev["sentence"]
    titles = {ev["title"] for ev in sources}
    prompt = prompt_runs()
    supported: list[bool] = []
    found = {"title": False, "claim": False, "prompt": False}
    for s in shown:
        text = s["text"]
        cited = [text_of[n] for n in s["citations"] if n in text_of]
        share = support_share(text, cited)
        supported.append(share is not None and share >= SUPPORT_SHARE)
        found["title"] |= any(copies(text, t, cited) for t in titles)
        found["claim"] |= copies(text, claim, cited)
        found["prompt"] |= copies_prompt(text, prompt)
    return supported, found


def copied_passage(sentence: str, sources: Sequence[str]) -> bool:
    """Whether the sentence is a quoted passage (agent.answer.compose's template) or an evidence sentence nearly word
    for word: ``COPY_SHARE`` of its content words in that sentence, and at least 80 % of its length."""
    if QUOTED.match(sentence.strip()):
        return True
    mine = len(words(sentence))
    return any(
        (support_share(sentence, [src]) or 0.0) >= COPY_SHARE and mine >= 0.8 * len(words(src)) for src in sources
    )


def only_copied(shown: Sequence[str], sources: Sequence[str]) -> bool:
    """An answer whose shown sentences (one at least) are all copied passages."""
    return bool(shown) and all(copied_passage(s, sources) for s in shown)
