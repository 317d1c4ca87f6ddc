"""The gate that reads the claim, on all 300 SciFact dev claims: today's judge and the shipped one, side by side, from
two judgement-only runs of ``claimtrace eval scifact --split dev --judgement-only`` made one after the other on the
same machine.

    python -m evals.studies.bearing_gate --run "today=DIR_A" --run "shipped=DIR_B" [--out evals/results]

Per run: Label-Only precision / recall / F1 and Selection+Label F1 (SciFact's official rules), the verdict's ECE and
its risk–coverage rows, seconds per claim (median, p95) and LLM calls per claim, claims whose LLM time ran out, the
labelled abstracts SciFact does not cite as evidence, gold abstracts labelled on the wrong side, each side's labels
(right of given, and recall of SciFact's abstracts of that side), and the dev claim pairs with opposite labels on
one abstract (a claim and its reversal) whose verdicts take the same side.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.scifact.records import PREDICTIONS_SUFFIX, replay_records
from evals.training.bearing_replay import DATA_DIR

RUN_NAME = "scifact_dev_judgement"


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


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)] if values else 0.0


def summarise(folder: Path, claims: list[dict[str, Any]]) -> dict[str, Any]:
    from agent.judge.scoring import verdict_sign

    run = json.loads((folder / f"{RUN_NAME}.json").read_text())
    records = {int(r["id"]): r for r in replay_records(folder / f"{RUN_NAME}{PREDICTIONS_SUFFIX}")}
    gold = {int(c["id"]): {d: sets[0]["label"] for d, sets in c["evidence"].items()} for c in claims}

    def taken(cid: int) -> int:
        v = records[cid]["result"]["verdict"] if cid in records else None
        return verdict_sign(v["label"]) if v else 0

    pairs = opposite_pairs(claims)
    labelled = not_gold = wrong_side = 0
    by_judge: dict[str, dict[str, int]] = {}
    right_in: dict[int, list[int]] = {}  # per claim: [labelled, right]
    by_side = {side_: {"gold": 0, "right": 0, "predicted": 0} for side_ in ("SUPPORT", "CONTRADICT")}
    for cid, rec in records.items():
        judged_by = {a["doc_id"]: a.get("judged_by", "?") for a in rec["result"].get("assessments", [])}
        for doc, pred in rec["predictions"].items():
            labelled += 1
            right = gold.get(cid, {}).get(doc) == pred["label"]
            tally = by_judge.setdefault(judged_by.get(doc, "?"), {"labelled": 0, "right": 0})
            tally["labelled"] += 1
            tally["right"] += right
            claim_tally = right_in.setdefault(cid, [0, 0])
            claim_tally[0] += 1
            claim_tally[1] += right
            by_side[pred["label"]]["predicted"] += 1
            if doc not in gold.get(cid, {}):
                not_gold += 1
            elif gold[cid][doc] != pred["label"]:
                wrong_side += 1
            else:
                by_side[pred["label"]]["right"] += 1
        for label in gold.get(cid, {}).values():
            by_side[label]["gold"] += 1
    seconds = [float(r["seconds"]) for r in records.values()]
    notes = [n for r in records.values() for n in r["result"].get("notes", [])]
    lo = run["abstract"]["label_only"]
    return {
        "folder": str(folder),
        "git_commit": run["run"]["git_commit"],
        "claims": len(records),
        "label_only": lo,
        "selection_label_f1": run["sentence"]["selection_label"]["f1"],
        "selection_f1": run["sentence"]["selection"]["f1"],
        "ece": run["calibration"]["verdict_reliability"]["ece"],
        "risk_coverage": run["calibration"]["risk_coverage"],
        "seconds_median": round(statistics.median(seconds), 2),
        "seconds_p95": round(p95(seconds), 2),
        "llm_calls_per_claim": run["cost"]["llm_calls_per_claim"],
        "claims_out_of_llm_time": sum(1 for r in records.values()
                                      if any("DIRECTION_SECONDS" in n for n in r["result"].get("notes", []))),
        "llm_unavailable_notes": sum(1 for n in notes if "LLM is unavailable" in n),
        "labelled": labelled,
        "by_judge": by_judge,
        "read_whole": sorted(cid for cid, r in records.items() if not r["result"]["verdict"].get("unread")),
        "right_by_claim": {str(cid): v for cid, v in right_in.items()},
        "by_side": by_side,
        "labelled_not_gold": not_gold,
        "gold_wrong_side": wrong_side,
        "reversed_pairs": len(pairs),
        "reversed_pairs_same_side": [list(p) for p in pairs if taken(p[0]) != 0 and taken(p[0]) == taken(p[1])],
    }


def side_cell(s: Mapping[str, int]) -> str:
    return f"{s['right']} / {s['predicted']}; {s['right'] / s['gold']:.3f} of {s['gold']}" if s["gold"] else "-"


def judge_cell(t: Mapping[str, int] | None) -> str:
    return f"{t['right']} / {t['labelled']} ({t['right'] / t['labelled']:.3f})" if t and t["labelled"] else "0 / 0"


def cell(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def markdown(res: Mapping[str, Any]) -> str:
    runs = res["runs"]
    names = list(runs)
    rows = [
        ("Label-Only precision", lambda r: r["label_only"]["precision"]),
        ("Label-Only recall", lambda r: r["label_only"]["recall"]),
        ("Label-Only F1", lambda r: r["label_only"]["f1"]),
        ("Selection F1", lambda r: r["selection_f1"]),
        ("Selection+Label F1", lambda r: r["selection_label_f1"]),
        ("verdict ECE", lambda r: r["ece"]),
        ("abstracts labelled", lambda r: r["labelled"]),
        ("of them not SciFact evidence", lambda r: r["labelled_not_gold"]),
        ("of them gold, wrong side", lambda r: r["gold_wrong_side"]),
        ("SUPPORT labels right / given; recall", lambda r: side_cell(r["by_side"]["SUPPORT"])),
        ("CONTRADICT labels right / given; recall", lambda r: side_cell(r["by_side"]["CONTRADICT"])),
        ("reversed claim pairs on one side",
         lambda r: f"{len(r['reversed_pairs_same_side'])} of {r['reversed_pairs']}"),
        ("seconds per claim, median", lambda r: r["seconds_median"]),
        ("seconds per claim, p95", lambda r: r["seconds_p95"]),
        ("LLM calls per claim", lambda r: r["llm_calls_per_claim"]),
        ("claims whose LLM time ran out", lambda r: r["claims_out_of_llm_time"]),
        ("labels the LLM read: right / given", lambda r: judge_cell(r["by_judge"].get("verifier+llm"))),
        ("labels the verifier gave alone: right / given", lambda r: judge_cell(r["by_judge"].get("verifier"))),
        (f"labels on the {len(res['read_whole_in_all'])} claims every run read whole: right / given",
         lambda r: judge_cell(r["on_read_whole"])),
    ]
    lines = [
        "# Only papers about the claim count — SciFact dev, all 300 claims, judgement only",
        "",
        f"`{res['command']}` — {res['date']}. Each run: `claimtrace eval scifact --split dev --judgement-only`, the "
        f"product's default settings, {res.get('when') or 'one after the other on the same machine'} "
        f"({res['machine']}). Commits: " + ", ".join(f"{n} {runs[n]['git_commit'][:10]}" for n in names) + ".",
        "",
        "| | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    lines += [f"| {label} | " + " | ".join(cell(get(runs[n])) for n in names) + " |" for label, get in rows]
    lines += ["", "Risk–coverage (verdict confidence threshold: coverage, Label-Only precision):", ""]
    for n in names:
        cells = [f"{r['threshold']}: {r['coverage']}, {r['precision']}" for r in runs[n]["risk_coverage"]]
        lines.append(f"- {n}: " + "; ".join(cells))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", action="append", required=True, help="NAME=FOLDER of a judgement-only dev run")
    p.add_argument("--machine", default="", help="the machine both runs were made on, in words")
    p.add_argument("--when", default="", help="when the runs were made, if not one after the other")
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    claims = [json.loads(line) for line in (DATA_DIR / "claims_dev.jsonl").read_text().splitlines()]
    res: dict[str, Any] = experiment_header("evals.studies.bearing_gate", argv, "dev", claims)
    res["machine"] = args.machine
    res["when"] = args.when
    res["runs"] = {}
    for spec in args.run:
        name, _, folder = spec.partition("=")
        res["runs"][name] = summarise(Path(folder), claims)
    # the claims whose papers the LLM read to the end in every run: the judges compared without the time limit
    whole = set.intersection(*(set(r["read_whole"]) for r in res["runs"].values()))
    res["read_whole_in_all"] = sorted(whole)
    for r in res["runs"].values():
        tallies = [v for cid, v in r["right_by_claim"].items() if int(cid) in whole]
        r["on_read_whole"] = {"labelled": sum(v[0] for v in tallies), "right": sum(v[1] for v in tallies)}
    write_experiment(args.out, "bearing_gate", res, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
