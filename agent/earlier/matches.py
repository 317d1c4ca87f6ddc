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
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from agent.earlier.relation import Relation, Thresholds, ask_llm, load_thresholds, read_pairs, same_words
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

    def describe(self) -> str:
        """"Checked on 28 Nov 2026 by alice: Not enough evidence (3 papers read).", with the earlier wording when it
        differs, so that the user sees what was checked; for an opposite, how it was phrased and what its verdict
        means for the new claim."""
        when = self.day
        by = t(" by {user}", user=self.checked_by) if self.checked_by else ""
        worded = "" if self.same_words else t(", worded \"{claim}\"", claim=self.claim)
        verdict, read = t(self.verdict), papers(self.papers_read)
        line = t("Checked on {when}{by}{worded}: {verdict} ({papers} read).", when=when, by=by, worded=worded,
                 verdict=verdict, papers=read)
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
    t = thresholds or load_thresholds()
    viewer = None if settings.stores.share_checks else visible_to
    near = nearest_kept(settings, embedder.encode([claim])[0], CANDIDATES, t.candidates_from, viewer)
    return classify(verifier, claim, near, t, llm if settings.stores.earlier_llm else None)


def classify(
    verifier: StanceVerifier,
    claim: str,
    near: Sequence[tuple[KeptCheck, float]],
    t: Thresholds,
    llm: BaseChatModel | None = None,
) -> list[EarlierCheck]:
    others = [k.claim for k, _ in near]
    readings = ask_llm(llm, claim, others, read_pairs(verifier, claim, others, t.same_from), t)
    found = [
        EarlierCheck(**k.__dict__, relation=r.relation(t), similarity=round(s, 4), p_same=r.same, p_opposite=r.opposite,
                     llm_same=r.llm_same, same_words=same_words(claim, k.claim))
        for (k, s), r in zip(near, readings, strict=True)
    ]
    order: dict[Literal["same", "opposite", "related"], int] = {"same": 0, "opposite": 1, "related": 2}
    return sorted(found, key=lambda e: (order[e.relation], -e.similarity))
