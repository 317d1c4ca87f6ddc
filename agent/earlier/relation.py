"""Whether two claims are the same claim, each other's opposite, or only on the same topic.

Two sentence embeddings of "X protects against Y" and "X does not protect against Y" are close neighbours, so
closeness only finds the candidates. The claim verifier (the cross-encoder that reads a claim against evidence)
then reads the two claims against each other in both orders: two wordings of one claim support each other both
ways. The opposite is read the same way, against the rule-made opposite of each claim (tools.text.opposite): a
claim that states the other's opposite supports that opposite both ways. The verifier's own "contradicts" is not
used, because it also fires for a claim about another population or outcome, which is related, not opposite. The
verifier reads past a single reversing word ("dependent" / "independent") or swapped comparands, so a pair that
holds one is never called the same claim (tools.text.opposite.reversal).

The verifier misses a claim put in other words ("macrolides" / "macrolide antibiotics", "myocardial infarction" /
"heart attack"). So where it leaves the nearest pair unsure (not one claim, not opposites, no reversing word), the
LLM is asked whether the two are the same claim, in both orders (prompts/same_claim.md), and a pair it reads as one
in both is the same claim. Without the LLM (none configured, EARLIER_LLM=false, or it fails) the verifier's reading
stands alone.

The thresholds are fitted on the fit half of evals/claim_matching/pairs.jsonl (SciFact train claims and text
written for the purpose) by ``python -m evals.claim_matching.fit --write`` and kept in ``relation.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Literal

from langchain_core.language_models import BaseChatModel

import prompts
from agent.judge.direction import yes_share
from agent.llm.calls import first_token
from agent.llm.client import LLMUnavailableError
from agent.state import StanceVerifier
from tools.text.opposite import negation, reversal, rule_opposite

Relation = Literal["same", "opposite", "related"]
THRESHOLDS_FILE = Path(__file__).with_name("relation.json")
# the unsure pairs the LLM reads, nearest first: each is two calls, 2-3 s on 2 cores, while the user waits
# (evals/results/earlier_match_bench.md); a paraphrase is the nearest kept claim more often than not
LLM_PAIRS = 1


@dataclass(frozen=True)
class Thresholds:
    """Where a pair counts as the same claim (both readings of the two claims at least ``same_from``) or as
    opposites (both readings of one claim against the other's opposite at least ``opposite_from``); candidates are
    the kept claims whose embedding's cosine similarity to the new claim is at least ``candidates_from``."""

    same_from: float = 0.8
    opposite_from: float = 0.8
    candidates_from: float = 0.5
    # a pair the verifier leaves unsure is the same claim when the LLM reads the two as one at least this sure in
    # both orders, and the verifier reads neither as the other's opposite as high as ``llm_opposite_below``
    llm_same_from: float = 1.01
    llm_opposite_below: float = 0.0

    def asks_llm(self, reading: PairReading) -> bool:
        """Whether the LLM's reading could make this pair the same claim (``PairReading.relation``)."""
        return reading.reversal is None and reading.same < self.same_from and reading.opposite < self.llm_opposite_below


@lru_cache(maxsize=1)
def load_thresholds(path: Path = THRESHOLDS_FILE) -> Thresholds:
    if not path.is_file():
        return Thresholds()
    raw = json.loads(path.read_text())
    return Thresholds(**{k: float(v) for k, v in raw.items()})


@dataclass(frozen=True)
class PairReading:
    """The verifier's reading of two claims: P(same), the lower of the two P(supports) of the claims read against
    each other, and P(opposite), the higher of the two such readings of one claim against the other's opposite;
    ``reversal`` names a word that may reverse one claim against the other (tools.text.opposite.reversal), which the
    verifier reads past: such a pair is never the same claim."""

    same: float
    opposite: float
    reversal: str | None = None
    llm_same: float | None = None  # the LLM's P(the same claim), the lower of both orders; None when not asked

    def relation(self, t: Thresholds) -> Relation:
        """The same claim when the two read as one (by the verifier, or by the LLM where the verifier is unsure)
        and no word may reverse one against the other; the opposite when one reads as the other's opposite and the
        two do not also read as one; else related (listed, never matched), as are two comparisons whose reversed
        word may be undone by swapped comparands."""
        if self.reversal == "comparison":
            return "related"
        if self.same >= t.same_from:
            return "same" if self.reversal is None else "related"
        if t.asks_llm(self) and self.llm_same is not None and self.llm_same >= t.llm_same_from:
            return "same"
        return "opposite" if self.opposite >= t.opposite_from else "related"


def opposite_of(claim: str) -> str:
    """The claim's opposite without an LLM: a reversed direction word or a flipped polarity, else "It is not true
    that ..."."""
    found = rule_opposite(claim)
    return found.text if found else negation(claim)


def same_words(a: str, b: str) -> bool:
    """The same words, whatever the case, spacing and closing punctuation: the same claim typed again."""
    def norm(text: str) -> str:
        return " ".join(text.casefold().split()).rstrip(" .!?")

    return norm(a) == norm(b)


def read_pairs(
    verifier: StanceVerifier, claim: str, others: list[str], decided_from: float | None = None
) -> list[PairReading]:
    """The reading of ``claim`` against each of ``others``: first the two claims against each other (two verifier
    pairs each, in one batch), then each against the other's opposite (four pairs each, in a second batch). With
    ``decided_from`` (the same-claim threshold) the second reading is skipped for a pair already read as one claim,
    whose relation it cannot change (``PairReading.relation``), and its P(opposite) is given as 0. A claim in the
    same words is the same claim without a reading."""
    todo = [k for k, other in enumerate(others) if not same_words(claim, other)]
    same = [r.p_supports for r in verifier.predict(
        [p for k in todo for p in ((claim, others[k]), (others[k], claim))], batch_size=12)] if todo else []
    p_same = {k: round(min(same[2 * n], same[2 * n + 1]), 4) for n, k in enumerate(todo)}
    left = [k for k in todo if decided_from is None or p_same[k] < decided_from]
    mine = opposite_of(claim)
    pairs: list[tuple[str, str]] = []
    for k in left:
        other, theirs = others[k], opposite_of(others[k])
        pairs += [(mine, other), (other, mine), (claim, theirs), (theirs, claim)]
    opp = [r.p_supports for r in verifier.predict(pairs, batch_size=12)] if pairs else []
    p_opp = {k: round(max(min(opp[4 * n], opp[4 * n + 1]), min(opp[4 * n + 2], opp[4 * n + 3])), 4)
             for n, k in enumerate(left)}
    return [PairReading(p_same[k], p_opp.get(k, 0.0), reversal(claim, other)) if k in p_same
            else PairReading(1.0, 0.0) for k, other in enumerate(others)]


def llm_same(llm: BaseChatModel, a: str, b: str) -> float:
    """The LLM's P(``a`` and ``b`` are the same claim): the lower of its two readings, A/B and B/A (a model that
    prefers its first claim reads both ways). Raises LLMUnavailableError."""
    shares = []
    for first, second in ((a, b), (b, a)):
        reply, probs, _ = first_token(llm, prompts.load("same_claim_system"),
                                      prompts.render("same_claim", a=first, b=second))
        shares.append(yes_share(probs, reply))
    return round(min(shares), 4)


def ask_llm(
    llm: BaseChatModel | None, claim: str, others: list[str], readings: list[PairReading], t: Thresholds
) -> list[PairReading]:
    """``readings`` (of ``claim`` against each of ``others``, nearest first), with the LLM's reading added for the
    nearest ``LLM_PAIRS`` pairs the verifier leaves unsure (``Thresholds.asks_llm``); without the LLM, or when it
    fails, they stand as the verifier read them."""
    out = list(readings)
    if llm is None:
        return out
    for k in [k for k, reading in enumerate(readings) if t.asks_llm(reading)][:LLM_PAIRS]:
        try:
            out[k] = replace(readings[k], llm_same=llm_same(llm, claim, others[k]))
        except LLMUnavailableError:
            break
    return out
