"""Typed graph state and the models it carries."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic (LangGraph Studio's input schema) needs it on Python < 3.12

from agent.paper_counts import side_counts
from agent.settings.app import Settings

if TYPE_CHECKING:  # the protocols only name these types; importing them loads torch and Chroma
    import numpy as np

    from tools.corpus import Abstract
    from tools.index.bm25 import Hit
    from tools.models.verifier import VerifierResult

QueryKind = Literal["claim", "question", "opposite", "reformulated"]
Status = Literal["supported", "contradicted", "unsupported", "uncited"]
# rewritten: the LLM restated the sentence from its cited evidence alone; replaced: an extractive statement of the
# cited finding (agent.answer.compose) took its place
Revision = Literal["recited", "hedged", "rewritten", "replaced"]
# What self-correction can do to a flagged sentence, cheapest faithful fix first (agent/nodes/correct.py).
CORRECTION_ACTIONS: tuple[str, ...] = ("recited", "hedged", "rewritten", "replaced", "dropped")


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
    """One evidence sentence. `n` is its paper's number, which the answer cites as [n]: the sentences of one abstract
    share it, and attribution names the exact sentence."""

    n: int
    doc_id: str
    title: str
    sentence: str
    sentence_index: int
    context: str = ""  # the sentence before, as the verifier reads it (tools.text.premise.before)
    section: str = ""  # where the sentence sits: "results; sentence 5 of 9" (tools.text.premise.where)
    neighbours: list[str] = Field(default_factory=list)  # CONTEXT_WINDOW sentences each side (agent.nodes.context)
    # the generated summary of its paper (agent.answer.supplement): written by the LLM from the whole
    # abstract after the answer and checked against it; "" until written, or when it was dropped or not written, and
    # then `supplement_note` says why
    supplement: str = ""
    supplement_note: str = ""
    url: str | None = None
    year: int | None = None
    doi: str | None = None  # identifiers and venue of its abstract, for references (ui/export/formats.py)
    pmid: str | None = None
    venue: str | None = None
    stance: Literal["supports", "contradicts", "nei"] = "nei"
    design: str = "unclassified"  # its abstract's study design (tools.documents.design)
    design_basis: str = "none"  # what decided it: publication type, MeSH, text or none
    retracted: bool = False
    notices: list[str] = Field(default_factory=list)  # erratum, expression of concern
    page: int | None = None  # the page of a full text (the user's library) the sentence is on
    # the rationale selector's shortlist score (agent.judge.rationale): how likely the sentence carries the paper's
    # finding, read before the verifier; None for a sentence the shortlist did not score. The check's own working
    # figure, not part of its result (left out of every dump)
    shortlist_score: float | None = Field(default=None, exclude=True)


def numbered(evidence: Sequence[Evidence]) -> list[Evidence]:
    """The evidence numbered by paper: the sentences of one abstract share its number [n], the papers numbered
    1, 2, ... in the order of their first sentence."""
    papers: dict[str, int] = {}
    return [ev.model_copy(update={"n": papers.setdefault(ev.doc_id, len(papers) + 1)}) for ev in evidence]


class SourceAssessment(BaseModel):
    """A local label on FRSC's 7-grade scale for one abstract, with its reputation weight and the inputs behind it."""

    doc_id: str
    label: str
    score: float
    reputation: float
    reputation_inputs: dict[str, Any] = Field(default_factory=dict)
    explanation: str
    stance_confidence: float = 0.0  # calibrated probability of its stance (the two-part judge: bears and that way)
    # the evidence gate (agent.judge.calibration): calibrated P(the abstract bears on the claim); None before the gate
    # existed
    bearing: float | None = None
    # the strongest sentence's 1 - P(nei): what the gate reads of the verifier
    verifier_bearing: float | None = None
    # the verifier's supports / (supports + contradicts) on its strongest sentence: its own reading of direction
    verifier_p_claim: float | None = None
    # calibrated P(the evidence supports the claim rather than its opposite), set when the LLM judged the direction
    p_claim: float | None = None
    judged_by: Literal["verifier", "verifier+llm", "reader"] = "verifier"


class SilentSource(BaseModel):
    """An abstract that was read but reports no finding on the claim: it counts as "no evidence" in the consensus
    view, with its weight, and says why it does not count."""

    doc_id: str
    title: str
    reputation: float
    reputation_inputs: dict[str, Any] = Field(default_factory=dict)
    bearing: float | None = None  # the gate's P(the abstract bears on the claim), when a gate read it
    reason: str = ""  # why it does not count, in a reader's words
    unread: bool = False  # the LLM did not read it (down, or out of time): the verdict is provisional
    close: bool = False  # the gate set it aside just below its threshold: worth the user's own reading


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
    score: float | None = None  # the verifier's; None for a sentence that quotes its source word for word
    reason: str = ""
    attribution: list[Attribution] = Field(default_factory=list)
    revision: Revision | None = None  # set when self-correction wrote this sentence in place of a flagged one
    original: str = ""  # the flagged sentence it replaces, citations included
    # the LLM's translation into the language the claim came in (agent.translate.answer_in), made after the check:
    # "" for an English claim, for a quote, and for a translation that could not be kept
    translation: str = ""


class Correction(BaseModel):
    """What self-correction did to one flagged sentence of the first answer, and why."""

    position: int  # 1-based, in the first answer
    original: str  # the flagged sentence as first written, citations included
    citations: list[int] = Field(default_factory=list)  # its valid citations
    invalid_citations: list[int] = Field(default_factory=list)  # the numbers it cited that name no evidence
    status: Status  # its verdict from the verifier
    reason: str  # why it was flagged
    action: Literal["recited", "hedged", "rewritten", "replaced", "dropped"]
    text: str = ""  # what the user sees instead ("" when dropped)


class Verdict(BaseModel):
    """The claim's verdict over every source whose stance counts (agent.judge.scoring.weighted_verdict), with how sure
    it is (calibrated) and how many sources took each side. ``leaning`` is the label it would give when its confidence
    is below the threshold and the label is "Cannot decide"."""

    label: str
    score: float
    unweighted_score: float
    counted_sources: int = 0
    confidence: float = 0.0
    supporting: int = 0
    contradicting: int = 0
    irrelevant: int = 0  # sources read that bear on the claim neither way
    leaning: str | None = None
    # the study designs of the sources it counts when all of them are weak ones (settings WEAK_DESIGNS), else []
    weak_designs: list[str] = Field(default_factory=list)
    # reached before everything the check will do: ``awaiting`` says what is still to come (the LLM's reading of
    # each source's direction, or its search questions)
    provisional: bool = False
    awaiting: Literal["judgement", "questions"] | None = None
    # sources the LLM did not read (down, or its time ran out), counted on the verifier's reading alone or listed
    # as not read (SilentSource.unread): a verdict that says so is provisional however final the check
    unread: int = 0

    def sides(self) -> str:
        """"2 papers support the claim and 1 contradicts it; 3 more bear on neither side"."""
        return side_counts(self.supporting, self.contradicting, self.irrelevant)

    def describe(self) -> str:
        """The verdict in one line for the LLM's prompts: label, leaning, confidence and the sources on each side."""
        leaning = f", leaning {self.leaning}" if self.leaning else ""
        return f"{self.label}{leaning} (confidence {self.confidence:.2f}; {self.sides()})"


class Usage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens the server reused from its prompt cache (a shared prefix)
    cut_replies: int = 0  # replies that stopped at the token limit (LLM_MAX_TOKENS)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cut_replies=self.cut_replies + other.cut_replies,
        )


def _add_times(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """Seconds per node, summed over the passes of a node that runs twice (the search after the LLM's questions)."""
    return {**a, **{k: round(a.get(k, 0.0) + v, 3) for k, v in b.items()}}


def _add_usage(a: Usage | None, b: Usage | None) -> Usage:
    return (a or Usage()) + (b or Usage())


class ClaimState(TypedDict, total=False):
    claim: str
    queries: list[Query]
    searched: list[str]  # query texts already searched
    questions_asked: bool  # decompose has run (whether or not the LLM gave questions)
    search_again: bool  # the verdict rests on too little and another search round is allowed (agent/nodes/verdict)
    rounds: int  # search rounds the reformulate node has planned
    round_queries: list[str]  # the queries of the latest reformulated round (fuse ranks their finds first)
    ranked_lists: dict[str, list[str]]  # "<retriever>|<query>" -> doc ids, best first
    candidates: list[RankedDoc]
    evidence: list[Evidence]
    assessments: list[SourceAssessment]
    silent: list[SilentSource]  # abstracts read that bear on the claim neither way, with their weights and why
    no_stance_confidence: float  # calibrated P(nei) of the candidate sentence most likely to bear on the claim
    opposite: str  # the claim's opposite the judge sets against it (agent/judge/direction.py)
    opposite_source: str  # what made it: direction, negation (rules), llm or template
    directions: dict[str, float]  # "<doc_id>|<sentence indices>|<opposite>" -> the LLM's raw P(claim), asked once
    bearings: dict[str, float]  # "<doc_id>|<sentence indices>" -> the LLM's raw P(Yes, it bears), asked once
    readings: dict[str, list[float]]  # doc_id -> the abstract reader's P(supports, refutes, nei), read once
    directed: bool  # the LLM has read the direction of the current assessments (or the judge did without it)
    verdict: Verdict
    summary: str  # the answer's first sentence: the verdict in words, from its figures (agent.judge.reckoning)
    answer: str
    sentences: list[AnswerSentence]
    original_answer: str  # the answer as first written, when self-correction changed it
    corrections: list[Correction]
    llm_error: str  # why the LLM failed during this check ("" while it answers): later steps do without it
    notes: Annotated[list[str], operator.add]
    usage: Annotated[Usage, _add_usage]
    timings: Annotated[dict[str, float], _add_times]


class SearchIndex(Protocol):
    """What the nodes use of the local index (tools.index.local.CorpusIndex)."""

    docs: dict[str, Abstract]

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def bm25(self, query: str, k: int) -> list[Hit]: ...

    def dense_sentences(self, query_vec: np.ndarray, k: int) -> list[Hit]: ...

    def sentence_vectors(self, doc_ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def find_doc(self, doi: str | None, pmid: str | None) -> str | None: ...

    def add_abstracts(self, docs: Sequence[Abstract]) -> list[str]: ...


class StanceVerifier(Protocol):
    """What the nodes use of the stance verifier (tools.models.verifier.Verifier)."""

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]: ...


@dataclass
class Deps:
    """What nodes need besides the state: injected, so tests can swap each part. ``verifier`` reads evidence against
    the claim (the verdict); ``sentence_verifier`` reads each answer sentence against the evidence it cites
    (verify, correct), the claim verifier when none is given; ``reader`` reads the claim against whole abstracts."""

    settings: Settings
    llm: BaseChatModel
    index: SearchIndex
    verifier: StanceVerifier
    sentence_verifier: StanceVerifier | None = None
    # the abstract reader reads the claim against each paper's whole abstract before the LLM (agent.judge.reader);
    # without one the LLM reads every paper
    reader: StanceVerifier | None = None

    @property
    def answer_verifier(self) -> StanceVerifier:
        return self.sentence_verifier or self.verifier


def deps_or(context: object, default: Callable[[], Deps]) -> Deps:
    """A run's dependencies: its context, or ``default()`` when it brings none (LangGraph Studio and its server run
    the graphs without one)."""
    return context if isinstance(context, Deps) else default()
