"""The rationale selector: which sentences of a paper carry its finding on the claim, the sentences a user reads under
each source and the LLM reads to judge it (the rationale selection step of SciFact, Wadden et al. 2020).

Two logistic regressions, fitted on SciFact train rationales by ``python -m evals.training.rationale_selector`` and
read from ``agent/judge/rationale_selector.json``:

* The shortlist reads every sentence of the abstract before the verifier does, so it costs no model call: the
  sentence's embedding similarity to the claim (and to the abstract's closest sentence), its rank by that similarity,
  its position (findings sit late, in the results and conclusions), whether it reports numbers or statistics, whether
  it reads as a finding ("we found", "was associated with", "no significant difference") or as background ("we aimed
  to", "to determine"), its length and the share of the claim's content words it contains. The top
  ``candidates_per_doc`` go to the verifier.
* The pick adds the verifier's reading of each shortlisted sentence (1 - P(nei) as a logit, and how far it leans to
  one side) to the shortlist's score, giving P(the sentence is a rationale). A paper shows its most likely sentence,
  and the next ones while they reach ``second_min``, up to ``sentences_per_doc``.

Without the file the shortlist is the similarity ranking and the pick the verifier's strongest reading.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agent.judge.calibration import logit, sigmoid

SELECTOR_FILE = Path(__file__).with_name("rationale_selector.json")

FEATURES = (
    "similarity",
    "similarity_below_best",
    "similarity_rank",
    "position",
    "position_squared",
    "last_sentence",
    "statistics",
    "finding_cue",
    "background_cue",
    "log_chars",
    "claim_words",
)

_STATISTICS = re.compile(r"\d|%|\bp\s*[<=>]|\bCI\b|odds ratio|hazard ratio|\b(OR|HR|RR)\b", re.IGNORECASE)
_FINDING = re.compile(
    r"\b(conclusions?|results?|we (found|show|observed|demonstrate|report)|showed?|shown|suggests?|indicates?|"
    r"associated|significant(ly)?|increased?|decreased?|reduced?|higher|lower|improved?|"
    r"no (significant )?(difference|effect|association))\b",
    re.IGNORECASE,
)
_BACKGROUND = re.compile(
    r"\b(background|objectives?|aims?|purpose|we (sought|aimed|investigated|examined)|"
    r"to (determine|assess|investigate|evaluate|examine))\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of in on and or to is are was were be by with for that this as at from it its not no".split()  # noqa: SIM905
)
_RANK_CAP = 5  # similarity ranks beyond this read the same


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def sentence_features(
    claim: str, sentences: Sequence[str], sims: Sequence[float], idx: Sequence[int]
) -> list[list[float]]:
    """The shortlist's features (``FEATURES`` order) of sentences ``idx`` of one abstract; ``sims`` holds every
    sentence's similarity to the claim."""
    if not idx:
        return []
    best = max(sims[i] for i in idx)
    rank = {i: k for k, i in enumerate(sorted(idx, key=lambda i: -sims[i]))}
    claim_words = content_words(claim)
    last = len(sentences) - 1
    rows = []
    for i in idx:
        s = sentences[i]
        pos = i / last if last > 0 else 1.0
        rows.append(
            [
                float(sims[i]),
                float(sims[i] - best),
                float(min(rank[i], _RANK_CAP)),
                pos,
                pos * pos,
                float(i == last),
                float(bool(_STATISTICS.search(s))),
                float(bool(_FINDING.search(s))),
                float(bool(_BACKGROUND.search(s))),
                math.log(max(len(s), 1)),
                len(claim_words & content_words(s)) / max(1, len(claim_words)),
            ]
        )
    return rows


@dataclass(frozen=True)
class RationaleSelector:
    # (intercept, one weight per FEATURES entry); empty: the similarity ranking
    shortlist_weights: tuple[float, ...] = ()
    # (intercept, shortlist score, logit(1 - P(nei)), |P(supports) - P(contradicts)|); empty: the verifier's reading
    pick_weights: tuple[float, ...] = ()
    # a paper shows a second (third...) sentence only when its P(rationale) reaches this
    second_min: float = 0.0

    def shortlist_scores(
        self, claim: str, sentences: Sequence[str], sims: Sequence[float], idx: Sequence[int]
    ) -> list[float]:
        """The shortlist's score (a logit) of sentences ``idx``; the similarity itself without weights."""
        if not self.shortlist_weights:
            return [float(sims[i]) for i in idx]
        w0, *w = self.shortlist_weights
        return [
            w0 + sum(a * b for a, b in zip(w, row, strict=True))
            for row in sentence_features(claim, sentences, sims, idx)
        ]

    def shortlist(
        self, claim: str, sentences: Sequence[str], sims: Sequence[float], k: int, min_chars: int
    ) -> list[tuple[int, float]]:
        """The ``k`` sentences most likely to carry the finding, best first, with their shortlist scores. Split
        fragments shorter than ``min_chars`` ("0.24 versus 1.15 +/-") carry no claim and are never evidence."""
        idx = [i for i, s in enumerate(sentences) if len(s) >= min_chars]
        scored = sorted(zip(idx, self.shortlist_scores(claim, sentences, sims, idx), strict=True), key=lambda t: -t[1])
        return scored[:k]

    def p_rationale(
        self, shortlist_score: float | None, p_supports: float, p_contradicts: float, p_nei: float
    ) -> float:
        """P(the sentence is a rationale) from its shortlist score and the verifier's reading; without weights (or
        without a shortlist score) the verifier's 1 - P(nei)."""
        if not self.pick_weights or shortlist_score is None:
            return 1.0 - p_nei
        w0, w_short, w_bears, w_lean = self.pick_weights
        return sigmoid(
            w0 + w_short * shortlist_score + w_bears * logit(1.0 - p_nei) + w_lean * abs(p_supports - p_contradicts)
        )

    def shown(self, probs: Sequence[float], n: int) -> list[int]:
        """Which of the shortlisted sentences (positions into ``probs``, their P(rationale)) a paper shows, likeliest
        first: the likeliest always, the next ones while they reach ``second_min``, ``n`` at most."""
        order = sorted(range(len(probs)), key=lambda k: -probs[k])[:n]
        return [k for j, k in enumerate(order) if j == 0 or probs[k] >= self.second_min]

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> RationaleSelector:
        def weights(key: str) -> tuple[float, ...]:
            value = data.get(key) or ()
            return tuple(float(x) for x in value) if isinstance(value, list | tuple) else ()

        second = data.get("second_min", 0.0)
        return cls(
            weights("shortlist_weights"),
            weights("pick_weights"),
            float(second) if isinstance(second, int | float) else 0.0,
        )


@cache
def get_selector(path: Path = SELECTOR_FILE) -> RationaleSelector:
    """The fitted selector; the similarity ranking and the verifier's reading when the file is missing."""
    if not path.is_file():
        return RationaleSelector()
    selector = RationaleSelector.from_dict(json.loads(path.read_text()))
    if selector.shortlist_weights and len(selector.shortlist_weights) != len(FEATURES) + 1:
        raise ValueError(
            f"{path}: shortlist_weights has {len(selector.shortlist_weights)} values, expected {len(FEATURES) + 1}"
        )
    if selector.pick_weights and len(selector.pick_weights) != 4:
        raise ValueError(f"{path}: pick_weights has {len(selector.pick_weights)} values, expected 4")
    return selector
