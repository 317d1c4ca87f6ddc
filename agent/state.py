"""Typed graph state and the models it carries."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol, TypedDict

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agent.settings import Settings

if TYPE_CHECKING:  # the protocols only name these types; importing them loads torch and Chroma
    import numpy as np

    from tools.corpus import Abstract
    from tools.index import Hit
    from tools.verifier import VerifierResult

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
    stance: Literal["supports", "contradicts", "nei"] = "nei"


class SourceAssessment(BaseModel):
    """A local label on FRSC's 7-grade scale for one abstract, with its reputation weight and the inputs behind it."""

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


class SearchIndex(Protocol):
    """What the nodes use of the local index (tools.index.CorpusIndex)."""

    docs: dict[str, Abstract]

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def bm25(self, query: str, k: int) -> list[Hit]: ...

    def dense_sentences(self, query_vec: np.ndarray, k: int) -> list[Hit]: ...

    def sentence_vectors(self, doc_ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def find_doc(self, doi: str | None, pmid: str | None) -> str | None: ...

    def add_abstracts(self, docs: Sequence[Abstract]) -> list[str]: ...


class StanceJudge(Protocol):
    """What the nodes use of the stance verifier (tools.verifier.Verifier)."""

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]: ...


@dataclass
class Deps:
    """What nodes need besides the state: injected, so tests can swap each part."""

    settings: Settings
    llm: BaseChatModel
    index: SearchIndex
    verifier: StanceJudge
