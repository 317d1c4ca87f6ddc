"""Word overlap between an answer sentence and other text, read without the verifier.

* ``copies``: does the sentence carry a run of words from a source text (the user's claim, a title) that the
  evidence it cites does not hold? Such a run was copied from that source, not reported from the evidence.
* ``support_share``: the share of the sentence's content words (no stop words, no numbers) found in given
  sentences, compared by a crude stem (the first 5 letters). It cannot see direction ("increased" and "decreased"
  share no stem, but "not" is a stop word), so it is a floor, not a judge.
* ``repeated_source``: the evidence sentence whose words the answer sentence repeats, to catch a sentence that
  quotes one source and cites another (the verifier reads topic, and passes it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

RUN = 6  # consecutive words that make a copy
REPEAT_SHARE = 0.8  # content words of a sentence found in one evidence sentence: it repeats that sentence
CITED_SHARE = 0.5  # below this share of its words in what it cites, a sentence that repeats another source misquotes
STOP = set(
    """a about above after again against all also although among an and any are as at be because been before being
    between both but by can could did do does during each either for from further had has have having here how
    however if in into is it its itself may might more most much must no nor not of on only or other our out over
    own same should so some such than that the their them then there these they this those through to too under
    until up very was we were what when where whether which while who whom why will with within would yet study
    studies found find reports report reported states background showed shows show""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[a-z][a-z0-9\-]*")
_NEGATED = {"not", "no", "never"}
_CONTRACTED = re.compile(r"n't\b", re.IGNORECASE)


def words(text: str) -> list[str]:
    """Lower-case words (letters, digits and hyphens, starting with a letter)."""
    return _WORD.findall(text.lower())


def runs(tokens: Sequence[str], n: int) -> Iterable[str]:
    """Every run of ``n`` consecutive tokens, joined by single spaces."""
    return (" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def copies(sentence: str, source: str, cited: Sequence[str], run: int = RUN) -> bool:
    """Whether the sentence holds a run of ``run`` consecutive words of ``source`` (all of it when shorter, at least
    3 words) that no cited text holds."""
    src = words(source)
    n = min(run, len(src))
    if n < 3:
        return False
    mine = f" {' '.join(words(sentence))} "
    evidence = f" {' '.join(words(' '.join(cited)))} "
    return any(f" {r} " in mine and f" {r} " not in evidence for r in runs(src, n))


def spelled_words(text: str) -> list[str]:
    """``words`` with "n't" spelled out ("didn't" -> "did", "not"), so a negation is one word however written."""
    return words(_CONTRACTED.sub(" not", text))


def without_negations(text: str) -> str:
    """The text without its negation words ("is not determined" -> "is determined"): what a sentence that negates
    a source's words is left with, to find the run it copied."""
    return " ".join(w for w in spelled_words(text) if w not in _NEGATED)


def content_stems(text: str) -> set[str]:
    return {w[:5] for w in words(text) if w not in STOP and len(w) > 2}


def support_share(sentence: str, cited: Sequence[str]) -> float | None:
    """Share of the sentence's content stems found in the cited sentences (None when it has none)."""
    mine = content_stems(sentence)
    if not mine:
        return None
    theirs = set().union(*(content_stems(c) for c in cited)) if cited else set()
    return len(mine & theirs) / len(mine)


def repeated_source(sentence: str, evidence: Mapping[int, str]) -> int | None:
    """The number of the evidence sentence holding the largest share of the sentence's content words (the first on
    a tie), when that share reaches ``REPEAT_SHARE``; None otherwise."""
    shares = {n: support_share(sentence, [text]) or 0.0 for n, text in evidence.items()}
    best = max(shares, key=lambda n: shares[n], default=None)
    return best if best is not None and shares[best] >= REPEAT_SHARE else None


def misattributed(sentence: str, citations: Sequence[int], evidence: Mapping[int, str]) -> int | None:
    """The uncited evidence number a sentence repeats while what it cites holds less than ``CITED_SHARE`` of its
    words; None when its words are its citations' (or nobody's)."""
    source = repeated_source(sentence, evidence)
    if source is None or source in citations:
        return None
    share = support_share(sentence, [evidence[n] for n in citations if n in evidence])
    return source if share is not None and share < CITED_SHARE else None
