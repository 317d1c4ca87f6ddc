"""Contrastive negation augmentation (``--negation-aug``). SciFact's CONTRADICT claims were written by annotators as
negations or alterations of supported claims, so flipping a claim's polarity and its label on the SAME rationale
teaches the model to read negation. Only claims that one of the simple rules below handles confidently are used."""

from __future__ import annotations

from agent.answer.compose import finding
from evals.training.data import Claim, Doc, Example, context_variants, rationale_sents
from tools.text.opposite import directional, flip_claim_direction, flip_direction, negate_claim


def negation_examples(claims: list[Claim], corpus: dict[int, Doc], *, placed: bool) -> tuple[list[Example], int]:
    """(negated claim, rationale, flipped label) for every SUPPORT/CONTRADICT rationale of a negatable claim."""
    out: list[Example] = []
    n_claims = 0
    for c in claims:
        if not c.evidence:
            continue
        neg = negate_claim(c.text)
        if not neg:
            continue
        n_claims += 1
        for d, sets in c.evidence.items():
            doc = corpus[d]
            rs = rationale_sents(c, d)
            for sents, lab in sets:
                out.append(Example(neg, context_variants(doc, sents, rs - set(sents), placed=placed), 1 - lab))
    return out, n_claims


# ---------------------------------------------------------------------------------------------------------------
# Premise-side contrast (``--premise-flips``): the rationale itself with its finding turned around ("increased" ->
# "decreased", "poor prognosis" -> "good prognosis", "was associated with" -> "was not associated with") and the
# label flipped, for the same claim. Claim-side negation alone leaves the evidence unchanged, so a model can still
# read stance from topic overlap; here the claim and nearly every word of the evidence stay, only the direction
# changes. A rationale is flipped only when exactly one direction word appears in it and it carries no negation
# (flipping "did not increase" to "did not decrease" would not reverse it); otherwise, when it has no direction
# word, one "associated with" or "significant" may be negated or un-negated.
# ---------------------------------------------------------------------------------------------------------------


def premise_flip_examples(claims: list[Claim], corpus: dict[int, Doc], *, placed: bool) -> tuple[list[Example], int]:
    """(claim, rationale with its direction reversed, flipped label) for every SUPPORT/CONTRADICT rationale of a
    directional claim in which exactly one sentence can be flipped; returns the examples and how many rationales
    could be flipped."""
    out: list[Example] = []
    for c in claims:
        if not directional(c.text):
            continue
        for d, sets in c.evidence.items():
            doc = corpus[d]
            rs = rationale_sents(c, d)
            for sents, lab in sets:
                changed = [(i, flip_direction(doc.sents[i])) for i in sents]
                flipped = [(i, s) for i, s in changed if s is not None]
                if len(flipped) != 1:
                    continue
                i, text = flipped[0]
                new_doc = Doc(doc.title, [text if k == i else s for k, s in enumerate(doc.sents)])
                out.append(Example(c.text, context_variants(new_doc, sents, rs - set(sents), placed=placed), 1 - lab))
    return out, len(out)


# ---------------------------------------------------------------------------------------------------------------
# Claim-side direction flips (``--claim-flips``): the claim with its one direction word reversed ("associated with
# poorer prognosis" -> "better prognosis", "increases" -> "decreases") against the same rationale, label flipped.
# SciFact's annotators wrote many CONTRADICT claims exactly so (train holds both "Antidepressants increase the
# severity of migraines" and "... reduce ..."); negation (``--negation-aug``) only adds or removes "not", which
# leaves the direction words the verifier must compare untouched. Association statements without a direction word
# are left to the negation rules.
# ---------------------------------------------------------------------------------------------------------------


def claim_flip_examples(claims: list[Claim], corpus: dict[int, Doc], *, placed: bool) -> tuple[list[Example], int]:
    """(claim with its direction reversed, rationale, flipped label) for every rationale of a claim that
    ``flip_claim_direction`` can reverse; returns the examples and how many claims were flipped."""
    out: list[Example] = []
    n_claims = 0
    for c in claims:
        flipped = flip_claim_direction(c.text) if c.evidence else None
        if not flipped:
            continue
        n_claims += 1
        for d, sets in c.evidence.items():
            doc = corpus[d]
            rs = rationale_sents(c, d)
            for sents, lab in sets:
                out.append(Example(flipped, context_variants(doc, sents, rs - set(sents), placed=placed), 1 - lab))
    return out, n_claims


# ---------------------------------------------------------------------------------------------------------------
# Self-pairs (``--self-pairs``): a rationale sentence read against its own placed premise is "supports", and the
# same sentence with its polarity flipped by ``negate_claim`` is "contradicts". The product's verify step reads an
# answer sentence against the evidence it cites, and most answer sentences repeat or shorten that evidence; the
# verifier trained on claims alone read a quarter of the evidence sentences that hold a negation ("was not
# associated", "but not in mouse") as contradicting themselves, because SciFact's negated claims are mostly
# CONTRADICT claims. The sentence is taken as an answer repeats it (agent.answer.compose.finding: no section heading or
# leading connective), and each is used once, whatever claim it is evidence for.
# ---------------------------------------------------------------------------------------------------------------


def self_pair_examples(claims: list[Claim], corpus: dict[int, Doc], *, placed: bool) -> tuple[list[Example], int]:
    """(rationale sentence, its own premise, supports) and (that sentence negated, the same premise, contradicts)
    for every sentence of a SUPPORT/CONTRADICT rationale of the claims; returns the examples and the sentences."""
    out: list[Example] = []
    seen: set[tuple[int, int]] = set()
    for c in claims:
        for d, sets in c.evidence.items():
            doc = corpus[d]
            rs = rationale_sents(c, d)
            for sents, _ in sets:
                for i in sents:
                    if (d, i) in seen:
                        continue
                    seen.add((d, i))
                    premises = context_variants(doc, [i], rs - {i}, placed=placed)
                    said = finding(doc.sents[i], max_chars=len(doc.sents[i]))  # as an answer repeats it
                    out.append(Example(said, premises, 0))
                    if negated := negate_claim(said):
                        out.append(Example(negated, premises, 1))
    return out, len(seen)
