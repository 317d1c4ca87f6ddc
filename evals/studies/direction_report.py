"""The report of evals/studies/direction_judge.py: the judge's variants fitted on the held-out pairs, read once on dev.

At the pair level the gate is the verifier's own: a pair bears when 1 - P(nei) >= 0.5 (the product's gate works per
abstract, with its retrieval rank, and is measured by the full dev run). A variant's direction is a logistic
regression fitted on the held-out bearing pairs; "LLM alone" reads P(claim) > 0.5 with no fit.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from agent.judge.calibration import logit
from evals.experiments import git_commit
from evals.scifact.records import PREDICTIONS_SUFFIX, replay_records
from evals.training.direction_data import Cache, bare, direction_rows
from evals.training.judge_calibration import apply, direction_features, fit_logistic
from evals.training.label_metrics import metrics

NEI = 2


def verifier_direction(r: dict[str, Any]) -> float:
    s, c = r["verifier"][0], r["verifier"][1]
    return s / (s + c) if s + c > 0 else 0.5


def three_way(rows: Sequence[dict[str, Any]], direction: Callable[[dict[str, Any]], float | None]) -> dict[str, Any]:
    """3-way metrics with the verifier's pair-level gate and ``direction`` (P(claim), or None: the verifier's)."""
    pred = []
    for r in rows:
        if 1 - r["verifier"][NEI] < 0.5:
            pred.append(NEI)
            continue
        p = direction(r)
        p = verifier_direction(r) if p is None else p
        pred.append(0 if p > 0.5 else 1)
    m = metrics([r["label"] for r in rows], pred)
    return {**m, "contradicts_f1": m["per_class"]["contradicts"]["f1"]}


def direction_accuracy(rows: Sequence[dict[str, Any]], direction: Callable[[dict[str, Any]], float | None]) -> float:
    right = []
    for r in rows:
        if r["label"] != NEI:
            p = direction(r)
            right.append(((verifier_direction(r) if p is None else p) > 0.5) == (r["label"] == 0))
    return round(float(np.mean(right)), 4) if right else float("nan")


# the dev runs the table compares: (row name, result file under evals/results)
RUNS = [
    ("today's judge: the verifier alone, no gate (same code, JUDGE_DIRECTION=verifier EVIDENCE_GATE=false)",
     "dev_judgement_baselines/verifier_alone/scifact_dev_judgement"),
    ("the verifier with the evidence gate (JUDGE_DIRECTION=verifier)",
     "dev_judgement_baselines/verifier_with_gate/scifact_dev_judgement"),
    ("shipped: the gate, then the LLM's direction", "scifact_dev_judgement"),
    ("the full run of the previous release (verifier v5 alone, with the answer)", "scifact_dev_full"),
]


def opposite_pairs(claims: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    """Dev claims that SciFact's annotators judged against the same abstract with opposite labels: a claim and its
    negation or reversal (51 / 53 on ALDH1, 742 / 743 on macrolides, ...)."""
    by_doc: dict[str, list[tuple[int, str]]] = {}
    for c in claims:
        for doc, sets in c["evidence"].items():
            by_doc.setdefault(doc, []).append((int(c["id"]), sets[0]["label"]))
    pairs = set()
    for labelled in by_doc.values():
        for a, la in labelled:
            for b, lb in labelled:
                if a < b and la != lb:
                    pairs.add((a, b))
    return sorted(pairs)


def runs_table(results: Any, claims_path: Any) -> list[dict[str, Any]]:
    """Label-Only P / R / F1, the verdict's ECE, seconds and LLM calls per claim, and the opposite claim pairs given
    the same side, of each dev run that exists."""
    from agent.judge.scoring import verdict_sign

    claims = [json.loads(line) for line in claims_path.read_text().splitlines()]
    pairs = opposite_pairs(claims)
    rows = []
    for name, stem in RUNS:
        path = results / f"{stem}.json"
        if not path.is_file():
            continue
        run = json.loads(path.read_text())
        predictions = path.parent / f"{path.stem.split('_limit')[0]}{PREDICTIONS_SUFFIX}"
        records = {int(r["id"]): r for r in replay_records(predictions)}

        def taken(cid: int, records: dict[int, Any] = records) -> int:
            v = records[cid]["result"]["verdict"] if cid in records else None
            return verdict_sign(v["label"]) if v else 0

        same = [p for p in pairs if taken(p[0]) != 0 and taken(p[0]) == taken(p[1])]
        lo = run["abstract"]["label_only"]
        rows.append({
            "run": name, "file": f"evals/results/{stem}.md", "precision": lo["precision"], "recall": lo["recall"],
            "f1": lo["f1"], "ece": run["calibration"]["verdict_reliability"]["ece"],
            "seconds": run["cost"]["seconds_per_claim"], "llm_calls": run["cost"]["llm_calls_per_claim"],
            "pairs": len(pairs), "same_side": [list(p) for p in same],
        })
    return rows


def report(args: argparse.Namespace) -> int:
    held = direction_rows(args.cache, "heldout")
    dev = direction_rows(args.cache, "dev")
    dev_meta = json.loads((args.cache / "direction_judge_dev_pairs.json").read_text())
    every_dev = dev_meta["rows"]
    by_premise = {(r["claim"], r["premise"]): r for r in dev}
    held_bearing = [r for r in held if r["label"] != NEI]
    y_held = np.array([r["label"] == 0 for r in held_bearing])

    llm_only = fit_logistic(direction_features(held_bearing, False), y_held)
    both = fit_logistic(direction_features(held_bearing, True), y_held)
    first_order = fit_logistic(np.array([[logit(r["orders"][0])] for r in held_bearing]), y_held)

    def fitted(weights: Sequence[float], with_verifier: bool) -> Callable[[dict[str, Any]], float | None]:
        def f(r: dict[str, Any]) -> float | None:
            got = by_premise.get((r["claim"], r["premise"]))
            if got is None:
                return None  # never asked: the verifier's P(nei) was too high for the gate
            return float(apply(weights, direction_features([got], with_verifier))[0])

        return f

    def raw(r: dict[str, Any]) -> float | None:
        got = by_premise.get((r["claim"], r["premise"]))
        return None if got is None else float(got["llm"])

    def one_order(r: dict[str, Any]) -> float | None:
        got = by_premise.get((r["claim"], r["premise"]))
        if got is None:
            return None
        return float(apply(first_order, np.array([[logit(got["orders"][0])]]))[0])

    variants: list[tuple[str, Callable[[dict[str, Any]], float | None]]] = [
        ("v5 verifier alone", lambda r: None),
        ("LLM choice alone (both orders, P(claim) > 0.5, no fit)", raw),
        ("two-part: verifier gate + LLM direction (both orders, fitted) — shipped", fitted(llm_only, False)),
        ("two-part: verifier gate + LLM and verifier direction (fitted; not shipped)", fitted(both, True)),
        ("two-part: one order only (claim as A), letter prior fitted", one_order),
    ]
    rows = []
    for name, f in variants:
        m = three_way(every_dev, f)
        rows.append({"judge": name, "macro_f1": m["macro_f1"], "contradicts_f1": m.get("contradicts_f1"),
                     "direction_accuracy": direction_accuracy(every_dev, f)})

    # evidence with its context, on the balanced sample asked both ways
    cache = Cache(args.cache / "direction_judge_dev.jsonl")
    sample = [every_dev[i] for i in dev_meta["context_sample"]]
    ctx = []
    for r in sample:
        opp = dev_meta["opposites"][r["claim"]][0]
        with_ctx = cache.rows.get(Cache.key("context", r["premise"], r["claim"], opp))
        without = cache.rows.get(Cache.key("bare", bare(r["premise"]), r["claim"], opp))
        if with_ctx and without:
            ctx.append((r["label"] == 0, with_ctx["p_claim"], without["p_claim"], verifier_direction(r)))
    context = {
        "pairs": len(ctx),
        "with_context": round(float(np.mean([(c > 0.5) == y for y, c, _, _ in ctx])), 4) if ctx else None,
        "without_context": round(float(np.mean([(b > 0.5) == y for y, _, b, _ in ctx])), 4) if ctx else None,
        "verifier": round(float(np.mean([(v > 0.5) == y for y, _, _, v in ctx])), 4) if ctx else None,
    }
    # opposites: rules vs the template, and the LLM's opposite where no rule applies
    dev_bearing = [r for r in dev if r["label"] != NEI]
    by_how: dict[str, list[bool]] = {}
    for r in dev_bearing:
        by_how.setdefault(r["opposite_how"], []).append((r["llm"] > 0.5) == (r["label"] == 0))
    llm_opp = []
    for r in dev_bearing:
        text = dev_meta["llm_opposites"].get(r["claim"])
        got = cache.rows.get(Cache.key("bare", bare(r["premise"]), r["claim"], text)) if text else None
        if got:
            llm_opp.append(((got["p_claim"] > 0.5) == (r["label"] == 0), (r["llm"] > 0.5) == (r["label"] == 0)))
    opposites = {
        "by_rule": {k: {"pairs": len(v), "accuracy": round(float(np.mean(v)), 4)} for k, v in by_how.items()},
        "llm_vs_template": {
            "pairs": len(llm_opp),
            "llm_opposite": round(float(np.mean([a for a, _ in llm_opp])), 4) if llm_opp else None,
            "template": round(float(np.mean([b for _, b in llm_opp])), 4) if llm_opp else None,
        },
    }
    bare_rows = [row for row in cache.rows.values() if row.get("variant") == "bare"]
    seconds = [row["seconds"] for row in bare_rows]
    prompt = sum(row["prompt_tokens"] for row in bare_rows)
    cached = sum(row["cached_tokens"] for row in bare_rows)
    res = {
        "command": "python -m evals.studies.direction_judge report",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "pairs": {"dev": len(every_dev), "dev_bearing": sum(r["label"] != NEI for r in every_dev),
                  "dev_asked": len(dev), "heldout_bearing": len(held_bearing)},
        "fits": {"llm_only": llm_only, "llm_and_verifier": both, "one_order": first_order},
        "judges": rows,
        "dev_runs": runs_table(args.out, args.claims),
        "context": context,
        "opposites": opposites,
        "seconds_per_pair": {"median": round(float(np.median(seconds)), 2) if seconds else None,
                             "p95": round(float(np.percentile(seconds, 95)), 2) if seconds else None},
        "prompt_tokens_per_pair": round(prompt / max(1, len(bare_rows)), 1),
        "cached_share": round(cached / max(1, prompt), 3),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "direction_judge.json").write_text(json.dumps(res, indent=2) + "\n")
    (args.out / "direction_judge.md").write_text(markdown(res))
    print(markdown(res))
    return 0


def markdown(res: dict[str, Any]) -> str:
    p = res["pairs"]
    lines = [
        "# The judge's direction: the LLM's choice between the claim and its opposite",
        "",
        f"- command: `{res['command']}` (after `python -m evals.studies.direction_judge collect`)",
        f"- date {res['date']}, commit {res['git_commit']}",
        f"- SciFact dev pairs: {p['dev']} ({p['dev_bearing']} bearing; {p['dev_asked']} asked of the LLM: every "
        f"bearing pair and every other pair the verifier gives P(nei) < 0.5); fits on {p['heldout_bearing']} "
        "held-out train bearing pairs",
        "- pair-level gate: the verifier's 1 - P(nei) >= 0.5; direction: P(claim) > 0.5",
        "",
        "| judge | 3-way macro-F1 | contradicts F1 | direction accuracy on bearing pairs |",
        "|---|---|---|---|",
    ]
    for r in res["judges"]:
        cf1 = f"{r['contradicts_f1']:.3f}" if r["contradicts_f1"] is not None else "—"
        lines.append(f"| {r['judge']} | {r['macro_f1']:.3f} | {cf1} | {r['direction_accuracy']:.3f} |")
    lines += [
        "",
        "## The full dev run (300 claims, `claimtrace eval scifact --split dev --judgement-only`)",
        "",
        "| run | Label-Only P | R | F1 | verdict ECE | seconds / claim | LLM calls / claim "
        "| opposite pairs on one side |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in res["dev_runs"]:
        lines.append(
            f"| {r['run']} (`{r['file']}`) | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} | {r['ece']} | "
            f"{r['seconds']:.1f} | {r['llm_calls']:.2f} | {len(r['same_side'])} of {r['pairs']} |"
        )
    c = res["context"]
    lines += [
        "",
        f"**Evidence with or without its context** (balanced sample of {c['pairs']} bearing dev pairs, direction "
        f"accuracy): without {c['without_context']}, with the sentence before {c['with_context']}; the verifier on "
        f"the same pairs {c['verifier']}.",
        "",
        "**Opposites** (direction accuracy of the LLM's raw choice on bearing dev pairs, by what made the opposite):",
    ]
    for how, v in res["opposites"]["by_rule"].items():
        lines.append(f"- {how}: {v['accuracy']} on {v['pairs']} pairs")
    lv = res["opposites"]["llm_vs_template"]
    lines += [
        f"- where no rule applies, the LLM's own opposite {lv['llm_opposite']} vs the template {lv['template']} on "
        f"{lv['pairs']} pairs",
        "",
        f"Seconds per pair (two calls, both orders; machine shared with other jobs): median "
        f"{res['seconds_per_pair']['median']}, p95 {res['seconds_per_pair']['p95']}; "
        f"{res['prompt_tokens_per_pair']} prompt tokens per pair, {res['cached_share']:.0%} of them served from "
        "the server's prompt cache (the second order shares the evidence with the first).",
        "",
    ]
    return "\n".join(lines)
