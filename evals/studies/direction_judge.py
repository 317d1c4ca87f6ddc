"""Does the LLM's choice between the claim and its opposite read direction better than the verifier, and what label
do the two make together? Measured on the verifier's SciFact pair sets (held-out train claims to fit, dev to report).

    python -m evals.studies.direction_judge collect [--sets heldout,dev] [--context-sample 160]
    python -m evals.studies.direction_judge report [--out evals/results]

``collect`` asks the embedded LLM, through the product's own call (agent.judge.direction.choose), and keeps every answer
in ``<cache>/direction_judge_<set>.jsonl`` (resumable: a rerun asks only what is missing). Per pair of a set
(evals/training/data.build_eval_pairs: each gold rationale, and up to three other sentences of the same abstracts as
not-enough-info) it records the verifier's calibrated probabilities on the premise the run time reads, the claim's
rule-made opposite (tools.text.opposite; the template "It is not true that ..." where no rule applies), and the LLM's
choice in both orders for every pair that bears or that the verifier thinks may bear (P(nei) below ``NEI_CUT``; the
gate never passes a pair above it), on the evidence without its context; a balanced sample of bearing dev pairs is
also asked with the context (the sentence before), and the claims no rule can turn are asked again with the LLM's
own opposite.

``report`` fits the judge's calibration on the held-out pairs (evals/training/judge_calibration.py) and reads dev
once: 3-way macro-F1, contradicts F1 and the direction accuracy on bearing pairs of the verifier alone, the LLM
choice alone, and the two-part judge, with each variant.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.training.data import NEI, build_eval_pairs, load_data, split_heldout
from evals.training.direction_data import CACHE_DIR, Cache, bare

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO.parent / "shared" / "data" / "scifact"
# pairs the verifier gives at least this P(nei) are not asked: the product never asks the LLM about them either
NEI_CUT = 0.5


def pair_sets(data_dir: Path) -> dict[str, tuple[list[tuple[str, str]], list[int]]]:
    corpus, train, dev = load_data(data_dir)
    _, held = split_heldout(train, 0.15, 13)
    out = {}
    for name, claims in (("heldout", held), ("dev", dev)):
        pairs, labels, _, _ = build_eval_pairs(claims, corpus)
        out[name] = (pairs, labels)
    return out


class Asker:
    """The product's contrastive choice (agent.judge.direction.choose), each answer kept in ``cache``."""

    def __init__(self, llm: Any, cache: Cache, name: str) -> None:
        self.llm, self.cache, self.name = llm, cache, name
        self.start, self.asked = time.perf_counter(), 0

    def __call__(self, variant: str, evidence: str, claim: str, opposite: str) -> None:
        from agent.judge.direction import choose

        key = Cache.key(variant, evidence, claim, opposite)
        if key in self.cache.rows:
            return
        t0 = time.perf_counter()
        choice = choose(self.llm, evidence, claim, opposite)
        self.cache.put(
            {
                "key": key,
                "variant": variant,
                "p_claim": choice.p_claim,
                "orders": list(choice.orders),
                "seconds": round(time.perf_counter() - t0, 3),
                "prompt_tokens": choice.usage.prompt_tokens,
                "cached_tokens": choice.usage.cached_tokens,
            }
        )
        self.asked += 1
        if self.asked % 25 == 0:
            print(f"  {self.name}: {self.asked} asked, {time.perf_counter() - self.start:.0f} s", flush=True)


def collect(args: argparse.Namespace) -> int:
    from agent.judge.direction import llm_opposite
    from agent.llm.client import EmbeddedServer, make_chat_model
    from agent.settings.app import Settings
    from tools.models.verifier import Verifier
    from tools.text.opposite import negation, rule_opposite

    sets = pair_sets(args.data_dir)
    settings = Settings()
    EmbeddedServer.get(settings).wait_ready()
    llm = make_chat_model(settings)
    verifier = Verifier()
    for name in args.sets.split(","):
        pairs, labels = sets[name]
        cache = Cache(args.cache / f"direction_judge_{name}.jsonl")
        probs = verifier.predict_proba(pairs)
        opposites: dict[str, tuple[str, str]] = {}
        for claim, _ in pairs:
            if claim not in opposites:
                ruled = rule_opposite(claim)
                opposites[claim] = (ruled.text, ruled.how) if ruled else (negation(claim), "template")
        rows: list[dict[str, Any]] = []
        for (claim, premise), label, p in zip(pairs, labels, probs, strict=True):
            rows.append({"claim": claim, "premise": premise, "label": label, "verifier": [round(x, 5) for x in p]})
        asked = [r for r in rows if r["label"] != NEI or r["verifier"][NEI] < NEI_CUT]
        bearing = [r for r in rows if r["label"] != NEI]
        rng = random.Random(7)
        sample: list[dict[str, Any]] = []
        if name == "dev":  # a balanced sample, as many supports as contradicts
            for lab in (0, 1):
                pool = [r for r in bearing if r["label"] == lab]
                sample += rng.sample(pool, min(len(pool), args.context_sample // 2))
        llm_claims = sorted({r["claim"] for r in bearing if opposites[r["claim"]][1] == "template"})
        print(
            f"{name}: {len(rows)} pairs, {len(asked)} asked, {len(sample)} with context, "
            f"{len(llm_claims)} claims without a rule-made opposite",
            flush=True,
        )
        ask = Asker(llm, cache, name)
        for r in asked:
            ask("bare", bare(r["premise"]), r["claim"], opposites[r["claim"]][0])
        for r in sample:
            ask("context", r["premise"], r["claim"], opposites[r["claim"]][0])
        llm_opp: dict[str, str] = {}
        for claim in llm_claims:
            key = Cache.key("opposite", claim)
            if key not in cache.rows:
                text, _ = llm_opposite(llm, claim)
                cache.put({"key": key, "variant": "opposite", "text": text})
            llm_opp[claim] = cache.rows[key]["text"]
        for r in bearing:
            if r["claim"] in llm_opp and llm_opp[r["claim"]]:
                ask("bare", bare(r["premise"]), r["claim"], llm_opp[r["claim"]])
        meta = {
            "rows": rows,
            "opposites": opposites,
            "llm_opposites": llm_opp,
            "context_sample": [rows.index(r) for r in sample],
        }
        (args.cache / f"direction_judge_{name}_pairs.json").write_text(json.dumps(meta, ensure_ascii=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--sets", default="heldout,dev")
    c.add_argument("--context-sample", type=int, default=160)
    c.add_argument("--data-dir", type=Path, default=DATA_DIR)
    c.add_argument("--cache", type=Path, default=CACHE_DIR)
    r = sub.add_parser("report")
    r.add_argument("--cache", type=Path, default=CACHE_DIR)
    r.add_argument("--out", type=Path, default=REPO / "evals" / "results")
    r.add_argument("--claims", type=Path, default=DATA_DIR / "claims_dev.jsonl")
    args = p.parse_args(argv)
    if args.command == "collect":
        return collect(args)
    from evals.studies.direction_report import report

    return report(args)


if __name__ == "__main__":
    sys.exit(main())
