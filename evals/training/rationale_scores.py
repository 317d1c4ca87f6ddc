"""The reader's rationale scores (``--rationale-weight``): the sentence head's score for each sentence of an abstract
read whole against the claim, and how often its top sentences hold a whole gold rationale set, the measure the
rationale selector (agent/judge/rationale.py) is compared by in evals/results/rationale_selector.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from evals.training.data import Claim, Doc
from evals.training.joint import abstract_text, sentence_positions
from evals.training.train import sentence_targets
from tools.models.verifier_net import CrossEncoderNet


def sentence_scores(net: CrossEncoderNet, tok: Any, claim: str, doc: Doc, max_len: int) -> list[float | None]:
    """The sentence head's logit for each sentence of ``doc``; None for a sentence the reader did not read (left out
    of a long abstract's premise, or cut by truncation)."""
    text = abstract_text(doc)
    positions = sentence_positions(text, doc)
    spans = tuple((start, end, False) for _, start, end in positions)
    enc = tok([claim], [text], truncation="longest_first", max_length=max_len, return_tensors="pt",
              return_offsets_mapping=True)
    sentence_of, targets = sentence_targets(enc, [spans])
    net.eval()
    with torch.inference_mode():
        _, scores = net.forward_sentences(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids"),
                                          sentence_of, targets.shape[1])
    out: list[float | None] = [None] * len(doc.sents)
    for k, (i, _, _) in enumerate(positions):
        if targets[0, k] >= 0:
            out[i] = float(scores[0, k])
    return out


def top_hits(net: CrossEncoderNet, tok: Any, claims: Sequence[Claim], corpus: dict[int, Doc],
             max_len: int) -> dict[str, Any]:
    """Over every (claim, evidence abstract): the share whose best-scored sentence, and whose two best, hold a whole
    gold rationale set (the selector's "rationale shown" with one and with two sentences shown), and whose best
    sentence is in a gold rationale set."""
    hits = {1: 0, 2: 0}
    first = n = 0
    for c in claims:
        for d, sets in c.evidence.items():
            scores = sentence_scores(net, tok, c.text, corpus[d], max_len)
            ranked = sorted((k for k, s in enumerate(scores) if s is not None), key=lambda k: -(scores[k] or 0.0))
            n += 1
            for shown in hits:
                hits[shown] += any(set(sents) <= set(ranked[:shown]) for sents, _ in sets)
            first += bool(ranked) and any(ranked[0] in sents for sents, _ in sets)
    share = {shown: round(h / max(n, 1), 3) for shown, h in hits.items()}
    return {"evidence_abstracts": n, "whole_set_in_top_1": share[1], "whole_set_in_top_2": share[2],
            "top_is_rationale": round(first / max(n, 1), 3)}
