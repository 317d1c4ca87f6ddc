"""What one verifier training run reads and how it learns, shared by the full trainer (evals/training/train.py) and
the cached-lower-layer one (evals/training/frozen.py): each epoch's examples with the class weights of the loss, the
layers that learn, the optimiser, one update step and model selection on the held-out claims."""

from __future__ import annotations

import argparse
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from evals.training.augment import (
    claim_flip_examples,
    negation_examples,
    premise_flip_examples,
    self_pair_examples,
)
from evals.training.data import (
    Claim,
    Doc,
    Example,
    load_climate_fever,
    load_nli_mix,
    load_pubmedqa,
    make_epoch_examples,
    sample_per_label,
)
from evals.training.joint import climate_fever_passages, joint_augmentation, joint_epoch_examples
from evals.training.layers import add_lora, freeze_below, init_from_artifact, recompute_layers
from tools.models.verifier_net import CrossEncoderNet, build_base_net


class Start(NamedTuple):
    """A run's seeded start: the sampling RNG, the base net and tokenizer, its weights before training (for the
    stored delta) and the parameters that learn."""

    rng: random.Random
    net: CrossEncoderNet
    tok: Any
    base_state: dict[str, torch.Tensor]
    body: list[torch.nn.Parameter]
    head: list[torch.nn.Parameter]


def start(args: argparse.Namespace) -> Start:
    """Seeds torch, builds the base (``--base``), starts the head from ``--init-head`` when given (an NLI head in
    the verifier's label order) and freezes all but the top ``--train-layers``."""
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    net, tok = build_base_net(args.base)
    if getattr(args, "init_head", None):
        net.head.load_state_dict(torch.load(args.init_head, weights_only=True))
    if getattr(args, "rationale_weight", 0.0):
        net.add_sentence_head()
    base_state = {n: p.detach().clone() for n, p in net.named_parameters()}
    body, head = freeze_below(net, args.train_layers)
    if getattr(args, "lora_rank", 0):
        body = add_lora(net, args.train_layers, args.lora_rank)
        if getattr(args, "init_from", None):
            init_from_artifact(net, args.init_from)
    if getattr(args, "recompute", False):
        recompute_layers(net, args.train_layers)
    return Start(rng, net, tok, base_state, body, head)


def update(
    loss: torch.Tensor,
    params: list[torch.nn.Parameter],
    opt: torch.optim.Optimizer,
    sched: torch.optim.lr_scheduler.LambdaLR,
) -> None:
    """One step: backward, gradient norm clipped to 1.0, optimiser and schedule forward, gradients cleared."""
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    sched.step()
    opt.zero_grad(set_to_none=True)


class TrainingData(NamedTuple):
    """What one training run reads: the examples of each epoch and the class weights of the loss."""

    epoch_examples: Callable[[int], list[Example]]
    weights: torch.Tensor


def training_data(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    args: argparse.Namespace,
    tag: str,
) -> TrainingData:
    """The recipe's examples: SciFact pairs with resampled negatives, the contrast augmentations and the extra
    stance data the flags ask for; class weights ~ 1/sqrt(class frequency) of the first epoch."""
    if getattr(args, "joint", False):
        return joint_training_data(claims, corpus, bm25_top, args, tag)
    placed = args.premise_style == "placed"
    aug: list[Example] = []
    if args.negation_aug:
        aug, n_neg = negation_examples(claims, corpus, placed=placed)
        print(f"[{tag}] negation augmentation: {n_neg} claims negated, {len(aug)} pairs", flush=True)
    if args.premise_flips:
        flips, n_flip = premise_flip_examples(claims, corpus, placed=placed)
        aug += flips
        print(f"[{tag}] premise-side contrast: {n_flip} rationales with their direction reversed", flush=True)
    if getattr(args, "claim_flips", False):
        claim_flips, n_claims = claim_flip_examples(claims, corpus, placed=placed)
        aug += claim_flips
        print(f"[{tag}] claim-side direction flips: {n_claims} claims, {len(claim_flips)} pairs", flush=True)
    if getattr(args, "self_pairs", False):
        selfs, n_sents = self_pair_examples(claims, corpus, placed=placed)
        aug += selfs
        print(f"[{tag}] self-pairs: {n_sents} rationale sentences, {len(selfs)} pairs", flush=True)

    extra: list[Example] = []
    if args.climate_fever:
        extra = load_climate_fever(args.climate_fever)
        print(f"[{tag}] CLIMATE-FEVER pool {len(extra)} pairs {dict(Counter(e.label for e in extra))}", flush=True)

    pq: list[Example] = []
    if args.pubmedqa:
        pq = load_pubmedqa(args.pubmedqa)
        print(f"[{tag}] PubMedQA pool {len(pq)} pairs {dict(Counter(e.label for e in pq))}", flush=True)

    ei: list[Example] = []
    nli: list[Example] = []
    if getattr(args, "nli_mix", None):
        ei, nli = load_nli_mix(args.nli_mix)
        print(f"[{tag}] NLI mix: Evidence Inference {dict(Counter(e.label for e in ei))}, "
              f"the rest {dict(Counter(e.label for e in nli))}", flush=True)

    def epoch_examples(ep: int) -> list[Example]:
        ep_rng = random.Random(args.seed + ep - 1)
        cf = sample_per_label(extra, args.cf_per_epoch, ep_rng) if extra else []
        pqa = sample_per_label(pq, args.pq_per_epoch, ep_rng) if pq else []
        mixed = (
            sample_per_label(ei, args.ei_per_epoch, ep_rng) + sample_per_label(nli, args.nli_per_epoch, ep_rng)
            if ei or nli
            else []
        )
        return make_epoch_examples(claims, corpus, bm25_top, ep_rng, placed=placed) + aug + cf + pqa + mixed

    return with_weights(epoch_examples, tag)


def with_weights(epoch_examples: Callable[[int], list[Example]], tag: str) -> TrainingData:
    """Class weights sqrt(N / (3 n_c)) from the first epoch's examples."""
    counts = Counter(e.label for e in epoch_examples(1))
    total = sum(counts.values())
    weights = torch.tensor([math.sqrt(total / (3 * counts[k])) for k in range(3)], dtype=torch.float)
    print(f"[{tag}] examples/epoch~{total} {dict(counts)} class weights {weights.tolist()}", flush=True)
    return TrainingData(epoch_examples, weights)


def joint_training_data(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    args: argparse.Namespace,
    tag: str,
) -> TrainingData:
    """Abstract-level examples (evals/training/joint.py): SciFact's cited abstracts with ``--joint-negatives`` hard
    negatives per claim, the contrast flags' abstract-level pairs, CLIMATE-FEVER's evidence sets read as passages
    (``--climate-fever``, drawn per epoch by ``--cf-per-epoch``) and Evidence Inference's trial findings
    (``--nli-mix``, drawn by ``--ei-per-epoch``; the rest of the NLI mix is sentence pairs and is left out)."""
    flips = bool(getattr(args, "claim_flips", False))
    contrast = args.negation_aug or args.premise_flips or flips
    aug = joint_augmentation(claims, corpus, claim_flips=flips) if contrast else []
    cf = climate_fever_passages(args.climate_fever) if args.climate_fever else []
    ei = load_nli_mix(args.nli_mix)[0] if getattr(args, "nli_mix", None) else []
    print(
        f"[{tag}] joint reading: {len(aug)} contrast pairs, "
        f"CLIMATE-FEVER passages {dict(Counter(e.label for e in cf))}, "
        f"Evidence Inference findings {dict(Counter(e.label for e in ei))}",
        flush=True,
    )
    negatives = getattr(args, "joint_negatives", 1)

    def epoch_examples(ep: int) -> list[Example]:
        ep_rng = random.Random(args.seed + ep - 1)
        extra = (sample_per_label(cf, args.cf_per_epoch, ep_rng) if cf else []) + (
            sample_per_label(ei, args.ei_per_epoch, ep_rng) if ei else []
        )
        return joint_epoch_examples(claims, corpus, bm25_top, ep_rng, negatives) + aug + extra

    return with_weights(epoch_examples, tag)


def optimiser(
    body: list[torch.nn.Parameter], head: list[torch.nn.Parameter], args: argparse.Namespace, total_steps: int
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LambdaLR]:
    """AdamW (encoder and head learning rates apart) with 6 % linear warm-up and linear decay."""
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    warm = max(1, int(0.06 * total_steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total_steps - s) / max(1, total_steps - warm))
    )
    return opt, sched


class Selection:
    """Model selection on the held-out claims: keeps the trainable weights of the best epoch."""

    def __init__(self, net: CrossEncoderNet) -> None:
        self.net, self.best_f1, self.best_epoch = net, -1.0, 0
        self.best_state: dict[str, torch.Tensor] | None = None

    def record(self, epoch: int, m: dict[str, Any], entry: dict[str, Any]) -> None:
        entry["heldout_macro_f1"] = m["macro_f1"]
        entry["heldout_accuracy"] = m["accuracy"]
        entry["heldout_per_class_f1"] = {k: v["f1"] for k, v in m["per_class"].items()}
        if m["macro_f1"] > self.best_f1:
            self.best_f1, self.best_epoch = m["macro_f1"], epoch
            self.best_state = {n: p.detach().clone() for n, p in self.net.named_parameters() if p.requires_grad}

    def restore(self, epochs: int) -> int:
        """Puts the best epoch's weights back; returns that epoch (``epochs`` when nothing was selected)."""
        if self.best_state is None:
            return epochs
        with torch.no_grad():
            params = dict(self.net.named_parameters())
            for n, t in self.best_state.items():
                params[n].copy_(t)
        return self.best_epoch
