"""The generated summary of a paper (the `supplement` of its sources; GENERATED_CONTEXT turns it on): one or two
sentences, written by the LLM from a paper's whole abstract, that situate the paper's evidence sentences (what was
studied, in whom, what was measured, what was found, a null result included). A reader, and a judge, sees one
sentence of an abstract; the summary says the rest at a glance. It is not the neighbouring sentences of
agent.nodes.context, which are the paper's own text.

The prompt has the shape of Anthropic's Contextual Retrieval (the whole document, then the chunk to situate within
it), as the study of supplementary context for fact-checking (Kobe University) uses; FactDetect's generated short
facts raised zero-shot LLM F1 on SciFact. One call per paper situates all of its shown sentences: the summary is
about the study, which its sentences share, and a call per sentence would read the same abstract again.

A generated summary is checked as an answer sentence is (agent.answer.checks.check_sentences): each of its sentences
cites the abstract, read sentence by sentence with the sentence before, by the independent sentence verifier. A
summary with one sentence the abstract does not support is dropped whole, with the reason, and the paper is shown
with its neighbouring sentences alone: a summary that adds a finding the paper does not report misleads more than
none.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from langchain_core.language_models import BaseChatModel

import prompts
from agent.answer.checks import check_sentences
from agent.grouping import grouped
from agent.llm.calls import chat
from agent.llm.client import LLMUnavailableError
from agent.state import AnswerSentence, Deps, Evidence, StanceVerifier, Usage
from tools.corpus import split_sentences
from tools.text.i18n import written
from tools.text.premise import before, where

# completion tokens a summary may take: two sentences of about 35 words
SUMMARY_TOKENS = 100


@dataclass(frozen=True)
class Supplement:
    """A paper's generated summary: ``text`` when its abstract supports it, else empty with ``note`` saying why
    (the sentence its abstract does not support, or why it was not written)."""

    text: str
    note: str = ""
    usage: Usage = field(default_factory=Usage)


def situating(title: str, sentences: Sequence[str], idx: Sequence[int]) -> str:
    """The prompt that asks for the summary that situates sentences ``idx`` of one abstract."""
    abstract = f"{title}\n" + " ".join(sentences)
    chunk = " ".join(sentences[i] for i in sorted(idx))
    return prompts.render("supplement", abstract=abstract, chunk=chunk)


def abstract_evidence(doc_id: str, title: str, sentences: Sequence[str]) -> list[Evidence]:
    """An abstract as the sources a summary cites: each sentence with the one before and its place, all [1]."""
    return [
        Evidence(n=1, doc_id=doc_id, title=title, sentence=s, sentence_index=i, context=before(sentences, i),
                 section=where(sentences, i))
        for i, s in enumerate(sentences)
    ]


def unsupported(text: str, doc_id: str, title: str, sentences: Sequence[str], verifier: StanceVerifier) -> str:
    """Why the abstract does not support the summary ``text`` ("" when it supports each of its sentences)."""
    said = [AnswerSentence(text=s, citations=[1]) for s in split_sentences(text)]
    if not said:
        return "it is empty"
    checked = check_sentences(said, abstract_evidence(doc_id, title, sentences), verifier, top=1)
    for s in checked:
        if s.status != "supported":
            return f'"{s.text}": {s.reason}'
    return ""


def clean(reply: str) -> str:
    """The summary as a reader sees it: one paragraph, without a label the model put before it."""
    text = " ".join(reply.split())
    for label in ("Context:", "context:", "CONTEXT:"):
        text = text.removeprefix(label).strip()
    return text


def supplement(
    llm: BaseChatModel,
    verifier: StanceVerifier,
    doc_id: str,
    title: str,
    sentences: Sequence[str],
    idx: Sequence[int],
) -> Supplement:
    """The checked summary that situates sentences ``idx`` of one abstract. Raises LLMUnavailableError."""
    reply, usage = chat(llm, prompts.load("supplement_system"), situating(title, sentences, idx),
                        max_tokens=SUMMARY_TOKENS)
    text = clean(reply)
    why = unsupported(text, doc_id, title, sentences, verifier)
    if why:
        return Supplement(text="", note=f"the abstract does not support it: {why}", usage=usage)
    return Supplement(text=text, usage=usage)


E = TypeVar("E", bound=Evidence)


def supplemented(
    evidence: Sequence[E], deps: Deps, on_paper: Callable[[int, Supplement], None] | None = None
) -> tuple[list[E], Usage, list[str]]:
    """The evidence with each paper's generated summary (``supplement``, or ``supplement_note`` saying why there is
    none), paper by paper in the order shown, within SUPPLEMENT_SECONDS; ``on_paper(n, supplement)`` is called as
    each paper's summary is written, so that a reader sees it at once. With the LLM's usage and the check's notes."""
    judge = deps.settings.judge
    papers = grouped(evidence, lambda ev: ev.doc_id)
    summaries: dict[str, Supplement] = {}
    usage, error, left = Usage(), "", 0
    start = time.perf_counter()
    for doc_id, shown in papers.items():
        doc = deps.index.docs.get(doc_id)
        if doc is None:
            summaries[doc_id] = Supplement(text="", note="not written: the index no longer holds its abstract")
            continue
        if error or time.perf_counter() - start >= judge.supplement_seconds:
            left += 1
            why = f"the LLM is unavailable ({error})" if error else (
                f"the time for writing summaries (SUPPLEMENT_SECONDS={judge.supplement_seconds:g}) ran out")
            summaries[doc_id] = Supplement(text="", note=f"not written: {why}")
            continue
        try:
            got = supplement(deps.llm, deps.answer_verifier, doc_id, doc.title, list(doc.sentences),
                             [ev.sentence_index for ev in shown])
        except LLMUnavailableError as e:
            error, left = str(e), left + 1
            summaries[doc_id] = Supplement(text="", note=f"not written: the LLM is unavailable ({error})")
            continue
        usage = usage + got.usage
        summaries[doc_id] = got
        if on_paper is not None:
            on_paper(shown[0].n, got)
    notes = []
    if left:
        why = written("the LLM is unavailable") if error else written("the time for writing them ran out")
        notes.append("supplement: " + written("{n} paper(s) have no generated summary: {why}", n=left, why=why))
    dropped = sum(1 for s in summaries.values() if s.note.startswith("the abstract"))
    if dropped:
        notes.append("supplement: " + written("{n} paper(s) had their generated summary dropped: their abstract "
                                              "does not support it", n=dropped))
    out = [ev.model_copy(update={"supplement": summaries[ev.doc_id].text,
                                 "supplement_note": summaries[ev.doc_id].note}) for ev in evidence]
    return out, usage, notes
