"""Earlier checks of a claim: every kept check is recorded with its claim's embedding (``record``); before a new claim
is searched, the kept claims nearest to it are read against it (agent.earlier.relation) and those that state the
same claim or its opposite are offered, with their verdict, date and who checked them (``find_earlier``). An
opposite's verdict is mirrored for the new claim (refuted becomes supported) and says so. Nothing is reused
silently: the chat, `claimtrace ask` and the MCP tool show the match and let the user choose.

Who sees what: ``visible_to`` None (the command line and the MCP server, run by whoever holds the store) sees every
kept check; a chat user sees their own, and everyone's when the deployment shares its checks (SHARE_CHECKS)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from agent.earlier.relation import (
    LLM_PAIRS,
    PairReading,
    Relation,
    Thresholds,
    ask_llm,
    load_thresholds,
    read_pairs,
    same_words,
)
from agent.judge.scoring import (
    LEANING_REFUTED,
    LEANING_SUPPORTED,
    REFUTED,
    SUPPORTED,
    WEAKLY_REFUTED,
    WEAKLY_SUPPORTED,
)
from agent.paper_counts import papers
from agent.settings.app import Settings
from agent.state import StanceVerifier
from agent.store.checkpoint import CheckpointUnavailableError
from agent.store.kept_checks import KeptCheck, keep, nearest_kept
from agent.store.postgres import DatabaseUnavailableError
from tools.models.embedder import Embedder
from tools.text.i18n import t

# what a store that cannot be read or written raises: a lookup or a record costs a warning, never the check
STORE_ERRORS = (CheckpointUnavailableError, DatabaseUnavailableError, sqlite3.Error, OSError)
CANDIDATES = 3  # kept claims read against a new one, nearest first (evals/results/earlier_match_bench.md)
MIRROR = {SUPPORTED: REFUTED, WEAKLY_SUPPORTED: WEAKLY_REFUTED, LEANING_SUPPORTED: LEANING_REFUTED}
MIRROR |= {b: a for a, b in MIRROR.items()}


class EarlierCheck(BaseModel):
    """A kept check found for a new claim: what it was, and how its claim stands to the new one."""

    check_id: str
    thread_id: str
    claim: str
    verdict: str  # the earlier check's verdict label, for its own claim
    papers_read: int
    checked_at: str  # ISO 8601, UTC
    checked_by: str
    relation: Relation
    similarity: float  # cosine similarity of the two claims' embeddings
    p_same: float
    p_opposite: float
    llm_same: float | None = None  # the LLM's P(the same claim), asked only where the verifier is unsure
    same_words: bool = False  # the earlier claim is worded as the new one (case, spacing and closing stop aside)

    @property
    def matched(self) -> bool:
        return self.relation != "related"

    def verdict_for_new_claim(self) -> str:
        """The earlier verdict as it reads for the new claim: mirrored for an opposite (supported <-> refuted)."""
        return MIRROR.get(self.verdict, self.verdict) if self.relation == "opposite" else self.verdict

    @property
    def day(self) -> str:
        """The day it was checked, "28 Nov 2026" (UTC), in the spoken language (tools.text.i18n)."""
        try:
            when = datetime.fromisoformat(self.checked_at)
        except ValueError:
            return self.checked_at
        return t("{day} {month} {year}", day=when.day, month=t(when.strftime("%b")), year=when.year)

    def by(self) -> str:
        return t(" by {user}", user=self.checked_by) if self.checked_by else ""

    def summary(self) -> str:
        """"Checked on 28 Nov 2026 by alice, worded "...": Not enough evidence (3 papers read).": the check as it was,
        for its own claim (the earlier wording only where it differs)."""
        worded = "" if self.same_words else t(", worded \"{claim}\"", claim=self.claim)
        return t("Checked on {when}{by}{worded}: {verdict} ({papers} read).", when=self.day, by=self.by(),
                 worded=worded, verdict=t(self.verdict), papers=papers(self.papers_read))

    def describe(self) -> str:
        """"Checked on 28 Nov 2026 by alice: Not enough evidence (3 papers read).", with the earlier wording when it
        differs, so that the user sees what was checked; for an opposite, how it was phrased and what its verdict
        means for the new claim."""
        when, by = self.day, self.by()
        verdict, read = t(self.verdict), papers(self.papers_read)
        line = self.summary()
        if self.relation == "opposite":
            mirrored = self.verdict_for_new_claim()
            line = t("Its opposite was checked on {when}{by}, phrased \"{claim}\": {verdict} ({papers} read).",
                     when=when, by=by, claim=self.claim, verdict=verdict, papers=read)
            if mirrored != self.verdict:
                line += t(" For your claim, that reads as: {verdict}.", verdict=t(mirrored))
        elif self.relation == "related":
            line = t("A related claim was checked on {when}{by}: \"{claim}\": {verdict}.", when=when, by=by,
                     claim=self.claim, verdict=verdict)
        return line


def papers_read(result: Mapping[str, Any]) -> int:
    """The papers a check read: those it counted and those read and not counted."""
    return len(result.get("assessments") or []) + len(result.get("silent") or [])


def record(settings: Settings, embedder: Embedder, result: Mapping[str, Any], thread_id: str, checked_by: str) -> None:
    """Keep one check (a CheckResult dump) findable by its claim."""
    claim = str(result.get("claim", "")).strip()
    verdict = result.get("verdict") or {}
    if not claim or not verdict:
        return  # a check that stopped before its verdict is not offered as one
    check = KeptCheck.new(thread_id, claim, str(verdict.get("label", "")), papers_read(result), checked_by)
    if result.get("id"):
        check = replace(check, check_id=str(result["id"]))  # the CheckResult's own id
    keep(settings, check, embedder.encode([claim])[0])


def matching_llm(settings: Settings) -> BaseChatModel | None:
    """The LLM that reads the pairs the verifier leaves unsure; None when none can be made (the verifier reads
    alone). The embedded model loads on its first request, so making it costs nothing until it is asked."""
    from agent.llm.client import LLMUnavailableError, make_chat_model

    try:
        return make_chat_model(settings)
    except LLMUnavailableError:
        return None


@dataclass(frozen=True)
class Lookup:
    """The kept claims near a new one (nearest first) and their readings: the verifier's at first, the LLM's added
    by ``read_by``. The chat shows what the verifier decides at once and the nearest unsure claim as a candidate
    while the LLM reads it (ui.chat.earlier_view); the command line and MCP wait for both (``find_earlier``)."""

    claim: str
    near: Sequence[tuple[KeptCheck, float]]
    readings: Sequence[PairReading]
    thresholds: Thresholds

    def check(self, k: int) -> EarlierCheck:
        """The ``k``-th nearest kept check, as its reading stands."""
        (kept, similarity), r = self.near[k], self.readings[k]
        return EarlierCheck(**kept.__dict__, relation=r.relation(self.thresholds), similarity=round(similarity, 4),
                            p_same=r.same, p_opposite=r.opposite, llm_same=r.llm_same,
                            same_words=same_words(self.claim, kept.claim))

    def checks(self) -> list[EarlierCheck]:
        """The kept checks as the readings stand: matches (same, opposite) first, then related ones, each group by
        similarity."""
        order: dict[Literal["same", "opposite", "related"], int] = {"same": 0, "opposite": 1, "related": 2}
        return sorted(map(self.check, range(len(self.near))), key=lambda e: (order[e.relation], -e.similarity))

    def unsure(self) -> list[EarlierCheck]:
        """The kept checks the LLM would read (agent.earlier.relation.ask_llm), nearest first."""
        t = self.thresholds
        return [self.check(k) for k, r in enumerate(self.readings) if t.asks_llm(r)][:LLM_PAIRS]

    def read_by(self, llm: BaseChatModel | None) -> Lookup:
        """This lookup with the LLM's reading of the unsure pairs added; as it is without an LLM."""
        others = [k.claim for k, _ in self.near]
        return replace(self, readings=ask_llm(llm, self.claim, others, list(self.readings), self.thresholds))


def look_up(
    settings: Settings,
    embedder: Embedder,
    verifier: StanceVerifier,
    claim: str,
    visible_to: str | None = None,
    thresholds: Thresholds | None = None,
) -> Lookup:
    """The kept checks near ``claim`` that ``visible_to`` may see, read against it by the verifier."""
    t = thresholds or load_thresholds()
    viewer = None if settings.stores.share_checks else visible_to
    near = nearest_kept(settings, embedder.encode([claim])[0], CANDIDATES, t.candidates_from, viewer)
    return Lookup(claim, near, read_pairs(verifier, claim, [k.claim for k, _ in near], t.same_from), t)


def find_earlier(
    settings: Settings,
    embedder: Embedder,
    verifier: StanceVerifier,
    claim: str,
    visible_to: str | None = None,
    thresholds: Thresholds | None = None,
    llm: BaseChatModel | None = None,
) -> list[EarlierCheck]:
    """The kept checks near ``claim`` that ``visible_to`` may see, read against it (by the verifier, and by ``llm``
    where the verifier is unsure, unless EARLIER_LLM=false): matches (same, opposite) first, then related ones, each
    group by similarity."""
    looked = look_up(settings, embedder, verifier, claim, visible_to, thresholds)
    return looked.read_by(llm if settings.stores.earlier_llm else None).checks()
