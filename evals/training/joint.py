"""Joint abstract-level reading (``--joint``), as MultiVerS and ARSJoint read: the claim against the whole abstract
at once -> supports / contradicts / nei for the abstract, instead of judging its sentences one by one.

The premise is the title and the abstract's sentences in order (tools.text.premise.whole_abstract, what the run
time's reader reads). Training examples per epoch: every (claim, evidence abstract) with its label, the negated
claims, the direction-flipped rationales and (``--claim-flips``) the direction-flipped claims of augment.py read in
the whole abstract, and nei abstracts (cited without evidence, a BM25 neighbour the claim does not cite, a random
abstract), resampled each epoch. Each SciFact example marks where its sentences stand and which are rationale
sentences (none in a nei abstract), for ``--rationale-weight``.

The evaluation pairs are abstract-level too (``joint_eval_pairs``); ``sentence_rule`` gives the same pairs' labels
from a sentence-level verifier that reads every sentence of the abstract, the baseline joint reading must beat.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.training.data import NEI, Claim, Doc, Example, doc_premise, rationale_sents
from tools.text.opposite import flip_claim_direction, flip_direction, negate_claim
from tools.text.premise import WHOLE_ABSTRACT_CHARS, premise, whole_abstract


def abstract_text(doc: Doc, max_chars: int = WHOLE_ABSTRACT_CHARS) -> str:
    """The whole abstract as one premise, exactly as the run time's reader reads it (tools.text.premise)."""
    return whole_abstract(doc.title, doc.sents, max_chars)


def sentence_positions(text: str, doc: Doc) -> list[tuple[int, int, int]]:
    """(sentence index, first character, end) of each of the abstract's sentences in ``text``, its whole-abstract
    premise, in order; a sentence the premise leaves out (a long abstract's middle) is not there."""
    out: list[tuple[int, int, int]] = []
    pos = len(doc.title)
    for i, sentence in enumerate(doc.sents):
        at = text.find(sentence, pos) if sentence else -1
        if at >= 0:
            out.append((i, at, at + len(sentence)))
            pos = at + len(sentence)
    return out


def sentence_spans(text: str, doc: Doc, rationale: set[int]) -> tuple[tuple[int, int, bool], ...]:
    """Where each sentence of the abstract stands in ``text`` and whether it is a rationale sentence."""
    return tuple((start, end, i in rationale) for i, start, end in sentence_positions(text, doc))


def read_whole(claim: str, doc: Doc, label: int, rationale: set[int]) -> Example:
    """The claim against the whole abstract, with its label and where its rationale sentences stand."""
    text = abstract_text(doc)
    return Example(claim, [text], label, sentence_spans(text, doc, rationale))


def _label(claim: Claim, doc_id: int) -> int:
    """An evidence abstract's label: SciFact gives one label per (claim, abstract)."""
    return claim.evidence[doc_id][0][1]


def joint_augmentation(claims: list[Claim], corpus: dict[int, Doc], *, claim_flips: bool = False) -> list[Example]:
    """The contrast examples at abstract level: negated claims against their evidence abstracts, and evidence
    abstracts whose one flippable rationale sentence is reversed, each with the flipped label; with
    ``claim_flips``, also the claim with its direction word reversed ("increases" -> "decreases") against the same
    abstract, the way SciFact's annotators wrote most refuted claims (augment.claim_flip_examples, here read
    against the whole abstract)."""
    out: list[Example] = []
    for c in claims:
        neg = negate_claim(c.text)
        turned = flip_claim_direction(c.text) if claim_flips else None
        for d in c.evidence:
            doc, lab, rationale = corpus[d], _label(c, d), rationale_sents(c, d)
            if neg:
                out.append(read_whole(neg, doc, 1 - lab, rationale))
            if turned:
                out.append(read_whole(turned, doc, 1 - lab, rationale))
            flips = [(i, flip_direction(doc.sents[i])) for i in sorted(rationale)]
            flipped = [(i, s) for i, s in flips if s is not None]
            if len(flipped) == 1:
                i, text = flipped[0]
                new = Doc(doc.title, [text if k == i else s for k, s in enumerate(doc.sents)])
                out.append(read_whole(c.text, new, 1 - lab, rationale))
    return out


def joint_epoch_examples(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    rng: random.Random,
    negatives: int = 1,
) -> list[Example]:
    """One epoch's SciFact examples: every cited abstract with its label, ``negatives`` hard negatives per claim drawn
    from the top abstracts BM25 ranks for it that SciFact does not cite (the ratio that sets precision against
    recall, SciFact-Open), and a random abstract for every other claim."""
    ex: list[Example] = []
    doc_ids = list(corpus)
    for c in claims:
        for d in c.evidence:
            ex.append(read_whole(c.text, corpus[d], _label(c, d), rationale_sents(c, d)))
        for d in c.cited:
            if d not in c.evidence:
                ex.append(read_whole(c.text, corpus[d], NEI, set()))
        others = [d for d in bm25_top.get(c.id, []) if d not in c.evidence and d not in c.cited]
        pool = others[: max(3, 2 * negatives)]
        for d in rng.sample(pool, min(negatives, len(pool))):
            ex.append(read_whole(c.text, corpus[d], NEI, set()))
        if rng.random() < 0.5:
            d = rng.choice(doc_ids)
            if d not in c.cited and d not in c.evidence:
                ex.append(read_whole(c.text, corpus[d], NEI, set()))
    return ex


CF_CLAIM_LABELS = {"SUPPORTS": 0, "REFUTES": 1, "NOT_ENOUGH_INFO": NEI}  # DISPUTED claims are left out


def climate_fever_passages(path: Path) -> list[Example]:
    """CLIMATE-FEVER's claims against their whole evidence set (five Wikipedia sentences) read as one passage, with
    the claim's label: supports, refutes, or not enough information (does not bear)."""
    out: list[Example] = []
    with path.open() as f:
        for line in f:
            r = json.loads(line)
            label = CF_CLAIM_LABELS.get(r["claim_label"])
            sents = [ev["evidence"].strip() for ev in r["evidences"] if ev["evidence"].strip()]
            if label is None or not sents:
                continue
            passage = premise(r["evidences"][0]["article"].strip(), " ".join(sents))
            out.append(Example(r["claim"].strip(), [passage], label))
    return out


def joint_eval_pairs(
    claims: list[Claim], corpus: dict[int, Doc], bm25_top: dict[int, list[int]]
) -> tuple[list[tuple[int, int]], list[int]]:
    """(claim id, doc id) pairs with their abstract-level labels: every evidence abstract, every cited abstract
    without evidence (nei), and the first BM25 neighbour the claim does not cite (nei, the hard case)."""
    keys: list[tuple[int, int]] = []
    labels: list[int] = []
    for c in claims:
        for d in dict.fromkeys([*c.evidence, *c.cited]):
            keys.append((c.id, d))
            labels.append(_label(c, d) if d in c.evidence else NEI)
        others = [d for d in bm25_top.get(c.id, []) if d not in c.evidence and d not in c.cited]
        if others:
            keys.append((c.id, others[0]))
            labels.append(NEI)
    return keys, labels


def joint_pairs(keys: Sequence[tuple[int, int]], claims: list[Claim], corpus: dict[int, Doc]) -> list[tuple[str, str]]:
    text = {c.id: c.text for c in claims}
    return [(text[c], abstract_text(corpus[d])) for c, d in keys]


def sentence_rule(
    verifier: Any, keys: Sequence[tuple[int, int]], claims: list[Claim], corpus: dict[int, Doc]
) -> list[int]:
    """Abstract labels from a sentence-level verifier reading every sentence of the abstract in place: the label
    of the sentence least likely to be nei when any sentence takes a side, else nei."""
    text = {c.id: c.text for c in claims}
    pairs, owner = [], []
    for k, (c, d) in enumerate(keys):
        doc = corpus[d]
        for i in range(len(doc.sents)):
            pairs.append((text[c], doc_premise(doc, [i], placed=True)))
            owner.append(k)
    probs = verifier.predict_proba(pairs)
    best: dict[int, list[float]] = {}
    for k, p in zip(owner, probs, strict=True):
        if max(p[0], p[1]) > p[NEI] and (k not in best or p[NEI] < best[k][NEI]):
            best[k] = p
    return [(0 if best[k][0] >= best[k][1] else 1) if k in best else NEI for k in range(len(keys))]
