"""Typed graph state and the models it carries."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent.settings import Settings

QueryKind = Literal["claim", "question", "opposite"]
Status = Literal["supported", "contradicted", "unsupported", "uncited"]


class Query(BaseModel):
    text: str
    kind: QueryKind


class RankedDoc(BaseModel):
    """One document after fusion: RRF score, where it was found, and the reranker's evidence score (best sentence's
    P(supports) + P(contradicts)) when it was reranked."""

    doc_id: str
    score: float
    found_by: list[str] = Field(default_factory=list)
    evidence_score: float | None = None


class Evidence(BaseModel):
    """One evidence sentence. `n` is the number the answer cites as [n]."""

    n: int
    doc_id: str
    title: str
    sentence: str
    sentence_index: int
    context: str = ""
    neighbours: list[str] = Field(default_factory=list)
    url: str | None = None
    year: int | None = None
    relevance: float = 0.0
    stance: Literal["supports", "contradicts", "nei"] = "nei"
    stance_score: float = 0.0


class SourceAssessment(BaseModel):
    """Seed 000: a local label on the 7-grade scale for one abstract."""

    doc_id: str
    label: str
    score: float
    reputation: float
    reputation_inputs: dict[str, Any] = Field(default_factory=dict)
    explanation: str


class Attribution(BaseModel):
    source: int
    sentence: str
    score: float


class AnswerSentence(BaseModel):
    text: str
    citations: list[int] = Field(default_factory=list)
    invalid_citations: list[int] = Field(default_factory=list)
    status: Status = "uncited"
    flagged: bool = True  # anything but a supported sentence with only real citations
    score: float | None = None
    reason: str = ""
    attribution: list[Attribution] = Field(default_factory=list)


class Verdict(BaseModel):
    label: str
    score: float
    unweighted_score: float
    counted_sources: int = 0


class Usage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


def _merge(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {**a, **b}


def _add_usage(a: Usage | None, b: Usage | None) -> Usage:
    return (a or Usage()) + (b or Usage())


class ClaimState(TypedDict, total=False):
    claim: str
    queries: list[Query]
    ranked_lists: dict[str, list[str]]  # "<retriever>|<query>" -> doc ids, best first
    candidates: list[RankedDoc]
    evidence: list[Evidence]
    assessments: list[SourceAssessment]
    verdict: Verdict
    answer: str
    sentences: list[AnswerSentence]
    notes: Annotated[list[str], operator.add]
    usage: Annotated[Usage, _add_usage]
    timings: Annotated[dict[str, float], _merge]


@dataclass
class Deps:
    """What nodes need besides the state: injected, so tests can swap each part."""

    settings: Settings
    llm: BaseChatModel
    index: Any  # tools.index.CorpusIndex or anything with the same methods
    verifier: Any  # tools.verifier.Verifier or anything with `predict`
