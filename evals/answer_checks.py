"""Checks of an answer sentence that do not use the verifier: whether its words are in what it cites (the
independent support check), and whether it copies a title, restates the claim or copies the prompt.

* content-word support: the share of the sentence's content words (no stop words, no numbers, no words of the
  extractive template) found in the sentences it cites, compared by a crude stem (the first 5 letters); a sentence
  is supported when at least ``SUPPORT_SHARE`` of them are. It cannot see direction ("increased" and "decreased"
  share no stem, but "not" is a stop word), so it is a floor, not a judge.
* a copied title or a restated claim: a run of ``RUN`` consecutive words of the title (or the claim) that the
  cited sentences do not contain; for a claim shorter than ``RUN`` words, the whole claim (tools.overlap; verify
  flags a restated claim in the product, so shown answers should carry none).
* copied prompt text: the prompts' own phrases (the evidence tags and attributes, the verifier's stance phrases,
  any run of ``RUN`` words of an answer prompt's instructions).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import prompts
from tools.overlap import RUN, copies, runs, words

SUPPORT_SHARE = 0.75
STOP = set(
    """a about above after again against all also although among an and any are as at be because been before being
    between both but by can could did do does during each either for from further had has have having here how
    however if in into is it its itself may might more most much must no nor not of on only or other our out over
    own same should so some such than that the their them then there these they this those through to too under
    until up very was we were what when where whether which while who whom why will with within would yet study
    studies found find reports report reported states background showed shows show""".split()  # noqa: SIM905
)
PROMPT_MARKERS = ("<finding", "</finding", "stance=", "supports the claim", "contradicts the claim", "<evidence")


def content_stems(text: str) -> set[str]:
    return {w[:5] for w in words(text) if w not in STOP and len(w) > 2}


def support_share(sentence: str, cited: Sequence[str]) -> float | None:
    """Share of the sentence's content stems found in the cited sentences (None when it has none)."""
    mine = content_stems(sentence)
    if not mine:
        return None
    theirs = set().union(*(content_stems(c) for c in cited)) if cited else set()
    return len(mine & theirs) / len(mine)


@lru_cache(maxsize=4)
def prompt_runs(names: Sequence[str] = ("answer", "answer_per_evidence", "answer_hybrid", "correct")) -> set[str]:
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
    claim: str, sources: Sequence[Mapping[str, object]], shown: Sequence[Mapping[str, object]]
) -> tuple[list[bool], dict[str, bool]]:
    """Every shown sentence's independent support (content words of what it cites), and whether the answer copies
    a title, restates the claim or copies prompt text. ``sources``: the numbered evidence (n, sentence, title)."""
    text_of = {int(str(ev["n"])): str(ev["sentence"]) for ev in sources}
    titles = {str(ev["title"]) for ev in sources}
    prompt = prompt_runs()
    supported: list[bool] = []
    found = {"title": False, "claim": False, "prompt": False}
    for s in shown:
        text = str(s["text"])
        citations = s["citations"]
        cited = [text_of[n] for n in citations if n in text_of] if isinstance(citations, list) else []
        share = support_share(text, cited)
        supported.append(share is not None and share >= SUPPORT_SHARE)
        found["title"] |= any(copies(text, t, cited) for t in titles)
        found["claim"] |= copies(text, claim, cited)
        found["prompt"] |= copies_prompt(text, prompt)
    return supported, found
