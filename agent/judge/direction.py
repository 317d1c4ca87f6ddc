"""What the LLM reads of a source's evidence, the judge's second part: whether the evidence reports a finding on the
claim at all (``bears``), and which of two statements, the claim or its opposite, it supports (``choose``).

Whether it bears is read from the first reply token's log-probabilities over Yes and No; a small verifier reads
shared topic as bearing, so an abstract about the claim's subject but not its question passes it, and the LLM, which
reads the claim as a question, tells the two apart better (evals/results/bearing_gate.md).

A small verifier reads topic overlap as support, so "ALDH1 is associated with better outcomes" and "... poorer
outcomes" look alike to it; set side by side, the two statements differ only where the direction lies, and the LLM
has to read that part of the evidence to choose. The choice is read from the first reply token's log-probabilities
over the letters A and B, asked in both orders (the claim as A, then as B) and averaged: a small model prefers one
letter whatever it reads (the embedded 1.5B model answers "A" most of the time), and averaging the two orders
cancels that preference while the probabilities still rank (the letter and order bias of "Calibrate Before Use",
Zhao et al. 2021). The evidence comes first in the prompt, so the second call shares its prefix with the first and a
server with a prompt cache reads it once; ``bears`` asks with the same system prompt and the same evidence first, so
the three questions about one source share that prefix.

The opposite comes from rules when one applies (tools.text.opposite), else from the LLM, else from the template "It is
not true that ...".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from langchain_core.language_models import BaseChatModel

import prompts
from agent.llm.calls import chat, first_token
from agent.state import Deps, Evidence, Usage
from tools.text.opposite import negation, rule_opposite
from tools.text.premise import abstract_premise, premise

OppositeSource = Literal["direction", "negation", "llm", "template"]
# completion tokens the LLM may spend on an opposite: one sentence of a claim's length
OPPOSITE_TOKENS = 60
# characters of an abstract the LLM reads in context (about 150 tokens: the evidence sentences and their nearest
# neighbours); prompt reading runs at about 40-60 tokens/s on a 2-core CPU, and a whole abstract (about 450 tokens)
# took 13-19 s a paper there
ABSTRACT_CHARS = 600


@dataclass(frozen=True)
class Bearing:
    """P(the evidence reports a finding on whether the claim is true), the LLM's first-token Yes against No."""

    p_bears: float
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class Choice:
    """P(the evidence supports the claim rather than its opposite), averaged over the orders asked."""

    p_claim: float
    orders: tuple[float, ...]  # P(claim) with the claim as A, then as B
    usage: Usage = field(default_factory=Usage)


def letter_share(probs: dict[str, float], reply: str) -> float:
    """P(A) / (P(A) + P(B)) from the first token's probabilities; from the reply's letter alone (1 or 0) when the
    server sent no probabilities for either; 0.5 when the reply is neither letter."""
    a, b = probs.get("A", 0.0), probs.get("B", 0.0)
    if a + b > 0:
        return a / (a + b)
    letter = reply.strip()[:1].upper()
    return 1.0 if letter == "A" else 0.0 if letter == "B" else 0.5


def yes_share(probs: dict[str, float], reply: str) -> float:
    """P(Yes) / (P(Yes) + P(No)) from the first token's probabilities (any case); from the reply's first word alone
    (1 or 0) when the server sent no probabilities for either; 0.5 when the reply is neither word."""
    yes = sum(p for t, p in probs.items() if t.lower() == "yes")
    no = sum(p for t, p in probs.items() if t.lower() == "no")
    if yes + no > 0:
        return yes / (yes + no)
    word = reply.strip().split(maxsplit=1)[0].strip(".,!").lower() if reply.strip() else ""
    return 1.0 if word == "yes" else 0.0 if word == "no" else 0.5


def bears(llm: BaseChatModel, evidence: str, claim: str) -> Bearing:
    """Whether ``evidence`` reports a finding on whether ``claim`` is true. Raises LLMUnavailableError."""
    user = prompts.render("bears", evidence=evidence, claim=claim)
    reply, probs, usage = first_token(llm, prompts.load("judge_system"), user)
    return Bearing(p_bears=round(yes_share(probs, reply), 4), usage=usage)


def choose(llm: BaseChatModel, evidence: str, claim: str, opposite: str, both_orders: bool = True) -> Choice:
    """Which of ``claim`` and ``opposite`` the ``evidence`` supports. Raises LLMUnavailableError."""
    system = prompts.load("judge_system")
    orders: list[float] = []
    usage = Usage()
    for claim_first in (True, False) if both_orders else (True,):
        a, b = (claim, opposite) if claim_first else (opposite, claim)
        reply, probs, used = first_token(llm, system, prompts.render("direction", evidence=evidence, a=a, b=b))
        share = letter_share(probs, reply)
        orders.append(share if claim_first else 1.0 - share)
        usage = usage + used
    return Choice(p_claim=round(sum(orders) / len(orders), 4), orders=tuple(round(p, 4) for p in orders), usage=usage)


def llm_opposite(llm: BaseChatModel, claim: str) -> tuple[str, Usage]:
    """The LLM's opposite of ``claim``: its first line, unquoted; "" when it wrote nothing usable (empty, the claim
    itself). Raises LLMUnavailableError."""
    reply, usage = chat(
        llm,
        prompts.load("opposite_system"),
        prompts.render("opposite", claim=claim),
        max_tokens=OPPOSITE_TOKENS,
    )
    line = next((ln.strip().strip("\"'") for ln in reply.splitlines() if ln.strip()), "")
    if not line or line.lower().rstrip(".") == claim.lower().rstrip("."):
        return "", usage
    return line, usage


def opposite_of(llm: BaseChatModel | None, claim: str) -> tuple[str, OppositeSource, Usage]:
    """The claim's opposite and what made it: a rule, else the LLM (when ``llm`` is given), else the template.
    Raises LLMUnavailableError only from the LLM."""
    ruled = rule_opposite(claim)
    if ruled is not None:
        return ruled.text, ruled.how, Usage()
    if llm is not None:
        text, usage = llm_opposite(llm, claim)
        if text:
            return text, "llm", usage
        return negation(claim), "template", usage
    return negation(claim), "template", Usage()


def evidence_text(deps: Deps, doc_id: str, sentences: list[Evidence]) -> str:
    """What the LLM reads of one source: its title, where the sentences sit, and its evidence sentences in abstract
    order, without the sentence before (evals/results/direction_judge.md compares both)."""
    doc = deps.index.docs.get(doc_id)
    if doc is None:  # a source the index no longer holds: its sentences as kept
        return f"{sentences[0].title}: " + " ".join(ev.sentence for ev in sentences)
    return abstract_premise(doc.title, doc.sentences, [ev.sentence_index for ev in sentences], with_context=False)


def in_context(title: str, sentences: list[str], idx: list[int], max_chars: int = ABSTRACT_CHARS) -> str:
    """A source read in its context: its title and its abstract, whole when it fits ``max_chars``, else the evidence
    sentences ``idx`` and the sentences nearest them, in abstract order. A null or contrary finding often sits in a
    sentence the rationale selector did not pick ("no association was found"), and a sentence alone loses who was
    studied and what was measured."""
    keep = set(idx)
    used = sum(len(sentences[i]) + 1 for i in keep)
    for i in sorted(range(len(sentences)), key=lambda k: (min(abs(k - j) for j in idx), k)):
        if i not in keep and used + len(sentences[i]) + 1 <= max_chars:
            keep.add(i)
            used += len(sentences[i]) + 1
    order = sorted(keep)
    whole = len(order) == len(sentences)
    span = f"sentences {order[0] + 1} to {order[-1] + 1} of {len(sentences)}"
    place = "the whole abstract" if whole else f"part of the abstract, {span}"
    return premise(title, " ".join(sentences[i] for i in order), place=place)


def abstract_text(deps: Deps, doc_id: str, sentences: list[Evidence]) -> str:
    """What the LLM reads of one source in context (``in_context``); the evidence sentences as shown when the index
    no longer holds the abstract."""
    doc = deps.index.docs.get(doc_id)
    if doc is None:
        return evidence_text(deps, doc_id, sentences)
    return in_context(doc.title, list(doc.sentences), [ev.sentence_index for ev in sentences])
