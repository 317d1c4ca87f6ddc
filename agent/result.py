"""The result of one check: one pydantic model, `CheckResult`, whose `model_dump()` is the `claimtrace ask --json`
object, what a chat thread keeps for its follow-ups and its UI, what a feedback record quotes, and what an eval
predictions record holds."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from agent.provenance import RunInfo
from agent.state import AnswerSentence, Correction, Evidence, SilentSource, SourceAssessment, Usage, Verdict


class Source(Evidence):
    """One evidence sentence as the user sees it: the sentence with its neighbouring sentences (and the paper's
    generated summary once written), and its abstract's label and reputation weight and stance confidence (None when
    the abstract was not labelled)."""

    label: str | None = None
    reputation: float | None = None
    reputation_inputs: dict[str, Any] = Field(default_factory=dict)
    stance_confidence: float | None = None  # calibrated: its abstract bears on the claim, and that way
    p_claim: float | None = None  # calibrated P(the evidence supports the claim, not its opposite): the LLM read it


class CheckResult(BaseModel):
    # one check's own id: a thread holds each check once, and a later node that amends the check (the generated
    # summaries of agent.followup.supplement) replaces it under this id (agent.followup.state.checks)
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    claim: str  # the claim as checked: in English (agent.translate)
    asked: str = ""  # the user's own words when the claim was translated into English ("" when it was not)
    language: str = "en"  # the language the claim came in (ISO 639-1)
    queries: list[str] = Field(default_factory=list)
    opposite: str = ""  # the statement each source's direction was read against ("" when the verifier alone judged)
    summary: str = ""  # the verdict in words, written by code from its figures: the answer's first sentence
    answer: str = ""  # the summary, then the answer sentences with their citations
    sentences: list[AnswerSentence] = Field(default_factory=list)
    original_answer: str = ""  # the answer before self-correction ("" when nothing was changed)
    corrections: list[Correction] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    assessments: list[SourceAssessment] = Field(default_factory=list)
    silent: list[SilentSource] = Field(default_factory=list)  # abstracts read that bear on the claim neither way
    verdict: Verdict | None = None
    llm: Usage = Field(default_factory=Usage)
    timings: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    # the kept checks this claim was matched to before the user chose to check it again (agent.earlier.matches:
    # EarlierCheck dumps), so that the new check keeps a link to the old ones
    earlier: list[dict[str, Any]] = Field(default_factory=list)
    run: RunInfo = Field(default_factory=RunInfo)  # when, with which models and settings

    @classmethod
    def from_state(cls, state: Mapping[str, Any], run: RunInfo | None = None) -> CheckResult:
        """The result of a finished (or partly finished) claim graph run, with what it ran with."""
        labels = {a.doc_id: a for a in state.get("assessments", [])}
        sources = []
        for ev in state.get("evidence", []):
            a = labels.get(ev.doc_id)
            extra = (
                a.model_dump(include={"label", "reputation", "reputation_inputs", "stance_confidence", "p_claim"})
                if a
                else {}
            )
            sources.append(Source(**ev.model_dump(), **extra))
        return cls(
            claim=state["claim"],
            queries=[q.text for q in state.get("queries", [])],
            opposite=state.get("opposite", ""),
            summary=state.get("summary", ""),
            answer=state.get("answer", ""),
            sentences=list(state.get("sentences", [])),
            original_answer=state.get("original_answer", ""),
            corrections=list(state.get("corrections", [])),
            sources=sources,
            assessments=list(state.get("assessments", [])),
            silent=list(state.get("silent", [])),
            verdict=state.get("verdict"),
            llm=state.get("usage") or Usage(),
            timings=dict(state.get("timings", {})),
            notes=list(state.get("notes", [])),
            run=run or RunInfo(),
        )

    def source(self, n: int) -> Source | None:
        """The first evidence sentence of paper [n], or None when the list has no such number."""
        return next((s for s in self.sources if s.n == n), None)

    def paper(self, n: int) -> list[Source]:
        """Every evidence sentence of paper [n], in list order ([] when there is no such number)."""
        return [s for s in self.sources if s.n == n]

    def cited_sources(self, sentence: AnswerSentence) -> list[Source]:
        """The evidence sentences of the papers a sentence cites, in citation order (numbers with no source are
        skipped)."""
        return [s for n in dict.fromkeys(sentence.citations) for s in self.paper(n)]
