"""Every judge variant the studies measured, in one table: the verdict's side per held-out claim by gold class and
Label-Only P/R/F1, each from its study's out-of-fold labels on the judge's replay of held-out SciFact train claims,
beside the committed SciFact dev runs of the judges that have one (the claim-level table, Label-Only P/R/F1 and
seconds a claim, each read back from its run's files).

    python -m evals.studies.judge_variants [--out evals/results] [--save-dev-sides]

It reads the studies' committed reports (evals/results/<study>.json, written by each study's `report`; the studies
are retired, evals/studies/README.md names the commit that holds each), the dev runs' reports (`claimtrace eval
scifact`) and each run's claim-level tables from evals/results/judge_variants_dev.json, which `--save-dev-sides`
writes from the runs' predictions files (only the shipped run's is kept); a run not in it is read back from its
predictions. It asks no LLM. A study run on fewer claims than the others (a partial `ask`) is on other folds, and
its row says how many claims it holds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, git_commit
from evals.scifact.claim_level import GOLD_CLASSES

STUDIES = ["bearing_question", "neither_choice", "in_context", "generated_context"]
RESULTS = REPO_ROOT / "evals" / "results"
ZEN4, AVX2 = "2-core AMD EPYC, AVX-512", "2-core AMD EPYC, AVX2 only"
AMX = "2-core Intel Xeon, AMX"
# The committed dev runs: the judge each ran, the machine, and the run's report; a run of the first N claims is read
# back on those claims only.
DEV_RUNS: list[tuple[str, str, Path]] = [
    ("the gate asks of the claim alone, DIRECTION_SECONDS=8", ZEN4, RESULTS / "scifact_dev_judgement.json"),
    ("the gate asks of the claim and its opposite, the higher, DIRECTION_SECONDS=8", AVX2,
     RESULTS / "opposite_gate" / "scifact_dev_judgement_limit100.json"),
    ("the gate asks of the claim and its opposite, the higher, DIRECTION_SECONDS=15", AVX2,
     RESULTS / "opposite_gate_15s" / "scifact_dev_judgement.json"),
    ("the same with LLM_QUESTIONS=true", AVX2,
     RESULTS / "llm_questions_dev60" / "scifact_dev_judgement_limit60.json"),
    ("the same judge, DIRECTION_SECONDS=15 binding only while others wait: every paper read", AVX2,
     RESULTS / "idle_reading" / "scifact_dev_judgement.json"),
    ("the same, with the MiniLM verifier's vote in the direction (not shipped)", AVX2,
     RESULTS / "verifier_vote" / "scifact_dev_judgement.json"),
    ("the mpnet verifier as the gate's first reader, with its vote in the direction (shipped)", AMX,
     RESULTS / "mpnet_verifier" / "scifact_dev_judgement.json"),
    ("the abstract reader passes papers it reads as bearing (P >= 0.95) past the gate (not shipped)", AMX,
     RESULTS / "reader" / "dev" / "scifact_dev_judgement.json"),
    ("the second-epoch abstract reader alone, JUDGE_DIRECTION=reader, no LLM (not shipped)", AMX,
     RESULTS / "reader" / "epoch2" / "alone" / "scifact_dev_judgement.json"),
    ("the second-epoch reader as the gate: aside below P 0.4, past it from 0.95, the LLM between and on the side "
     "(not shipped)", AMX, RESULTS / "reader" / "epoch2" / "gate" / "scifact_dev_judgement.json"),
    ("the third-epoch reader with two keys: aside below P 0.4; from 0.95 a paper counts from 0.10 of the gate's "
     "reading (its own side from 0.95 sure), the LLM on the rest (not shipped)", ZEN4,
     RESULTS / "reader" / "two_keys" / "scifact_dev_judgement.json"),
    ("the same two keys, a paper the gate doubts (between 0.10 and 0.35) counting only where the LLM's side is the "
     "reader's (not shipped)", AMX, RESULTS / "reader" / "agree" / "scifact_dev_judgement.json"),
    ("the shipped judge again, a second run on the same machine kind", AMX,
     RESULTS / "mpnet_verifier" / "rerun" / "scifact_dev_judgement.json"),
    ("the same agreeing two keys again, a second run on the same machine kind (not shipped)", AMX,
     RESULTS / "reader" / "agree" / "rerun" / "scifact_dev_judgement.json"),
]
# Each dev run's claim-level tables (on its claims, and a full run's on the first claims of each shorter run), read
# once from the runs' predictions: {"runs": {report file under evals/results: {"all" or N: {"claims_in_run",
# "claims"}}}}.
DEV_SIDES = RESULTS / "judge_variants_dev.json"


def rows_of(results: Path) -> list[dict[str, Any]]:
    """One row per judge of each study report found under ``results``."""
    rows = []
    for study in STUDIES:
        path = results / f"{study}.json"
        if not path.is_file():
            continue
        res = json.loads(path.read_text())
        for name, judge in res["judges"].items():
            if "claims" in judge:
                rows.append({"study": study, "judge": name, "claims_in_study": res["claims"],
                             "machine": res.get("machine", ""), **judge})
    return rows


def scifact_claims(split: str, limit: int | None) -> list[dict[str, Any]]:
    """The first ``limit`` claims of a SciFact split (all when None), from the corpus copy `make setup` made."""
    from agent.settings.app import get_settings
    from evals.scifact.data import load_claims

    return list(load_claims(get_settings().stores.corpus_mirror, split, limit))


def saved_sides(path: Path = DEV_SIDES) -> dict[str, dict[str, Any]]:
    """The claim-level tables saved in ``path`` per run's report file (none when it is absent)."""
    return json.loads(path.read_text())["runs"] if path.is_file() else {}


def dev_rows(runs: list[tuple[str, str, Path]] = DEV_RUNS,
             claims_of: Callable[[str, int | None], list[dict[str, Any]]] = scifact_claims,
             saved: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One row per committed dev run: its claim-level table from the saved tables (``saved``, by default
    judge_variants_dev.json's) or, for a run they do not hold, read back from its predictions; its Label-Only P/R/F1
    and seconds a claim from its report. A full run also gets a row on the first N claims of each shorter run
    (--limit N), so that every run has a row comparable with every other."""
    from evals.scifact.claim_level import claim_sides
    from evals.scifact.records import PREDICTIONS_SUFFIX, read_records

    saved = saved_sides() if saved is None else saved
    reports = [(judge, machine, report, json.loads(report.read_text())) for judge, machine, report in runs
               if report.is_file()]
    shorter = sorted({res["run"]["limit"] for *_, res in reports if res["run"].get("limit") is not None}, reverse=True)
    rows = []
    for judge, machine, report, res in reports:
        run = res["run"]
        file = report.relative_to(RESULTS).as_posix() if report.is_relative_to(RESULTS) else str(report)
        tables = saved.get(file, {})
        records: list[dict[str, Any]] | None = None
        limits = [run["limit"]] if run.get("limit") is not None else [None, *shorter]
        for limit in limits:
            table = tables.get("all" if limit is None else str(limit))
            if table is None:
                if records is None:
                    records = read_records(report.parent / f"scifact_{run['split']}_judgement{PREDICTIONS_SUFFIX}")
                claims = claims_of(run["split"], limit)
                table = {"claims_in_run": len(claims), "claims": claim_sides(records, claims)}
            # Label-Only and the time are of the whole run: a row on its first claims has neither
            whole = limit == run.get("limit")
            rows.append({"judge": judge, "machine": machine, "file": file, "limit": limit, **table,
                         "label_only": res["abstract"]["label_only"] if whole else None,
                         "seconds_per_claim": res["cost"].get("seconds_per_claim") if whole else None})
    return sorted(rows, key=lambda r: -r["claims_in_run"])  # rows on the same claims together, in DEV_RUNS' order


def sides_of(dev: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The dev rows' claim-level tables as judge_variants_dev.json keeps them."""
    runs: dict[str, dict[str, Any]] = {}
    for r in dev:
        runs.setdefault(r["file"], {})["all" if r["limit"] is None else str(r["limit"])] = {
            "claims_in_run": r["claims_in_run"], "claims": r["claims"]}
    return runs


def side_cells(claims: dict[str, Any]) -> list[str]:
    """A claim-level table's "right / wrong / none" cell per gold class (no right side for claims without evidence)."""
    return [f"{'–' if g == 'NEI' else claims[g]['right']} / {claims[g]['wrong']} / {claims[g]['none']}"
            for g in GOLD_CLASSES]


def markdown(rows: list[dict[str, Any]], dev: list[dict[str, Any]], command: str) -> str:
    lines = [
        "# Every judge variant, one table",
        "",
        f"`{command}` — commit {git_commit()}. Each row is one judge of one study on the judge's replay of held-out "
        "SciFact train claims: its gate, direction and threshold fitted on four folds of claims, labelling the fifth "
        "(replay_folds, a retired study module: evals/studies/README.md). The verdict's side is the sign of the mean "
        "score of the papers that count. "
        "Rows of a study with fewer claims than the others are on other folds: compare them with the shipped row "
        "of their own study. A row marked shipped names the judge shipped when its study ran (the gate asking of "
        "the claim alone); the judge shipped now is in_context's \"gate on the shown sentences, of the claim and its "
        "opposite, the higher\" (agent/judge/judge_calibration.json names its reading).",
        "",
        "| study | judge | claims | LLM calls per abstract | " + " | ".join(
            f"{g}: right / wrong / none" for g in GOLD_CLASSES) + " | right of settled | right when a side is "
        "taken | Label-Only P | R | F1 |",
        "|---|---|---:|---:|" + "---:|" * len(GOLD_CLASSES) + "---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        c, s = r["claims"], r["label_only"]
        cells = side_cells(c)
        lines.append(f"| [{r['study']}]({r['study']}.md) | {r['judge']} | {r['claims_in_study']} | "
                     f"{r.get('llm_calls_per_abstract', '–')} | " + " | ".join(cells)
                     + f" | {c['right_of_settled']} | {c['right_when_sided']} | {s['precision']} | {s['recall']} "
                     f"| {s['f1']} |")
    lines += ["", "## SciFact dev, the committed runs", ""]
    if not dev:
        lines.append("No committed dev run.")
        return "\n".join(lines) + "\n"
    lines += [
        "Each row a `claimtrace eval scifact --judgement-only` run at the defaults of its time; the files name the "
        "command and commit. A full run also has a row on the first claims of each shorter run, those it read "
        "(Label-Only and seconds a claim are of whole runs only); compare rows with the same claims.",
        "",
        "| judge | run | machine | claims | " + " | ".join(f"{g}: right / wrong / none" for g in GOLD_CLASSES)
        + " | right of settled | wrong side | right when a side is taken | Label-Only P | R | F1 | s a claim |",
        "|---|---|---|---:|" + "---:|" * len(GOLD_CLASSES) + "---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in dev:
        c, s = r["claims"], r["label_only"]
        cells = side_cells(c)
        scores = ["–"] * 3 if s is None else [f"{s[k]:.3f}" for k in ("precision", "recall", "f1")]
        secs = r["seconds_per_claim"]
        lines.append(f"| {r['judge']} | [{r['file']}]({r['file'].removesuffix('.json')}.md) | {r['machine']} | "
                     f"{r['claims_in_run']} | " + " | ".join(cells)
                     + f" | {c['right_of_settled']} | {c['wrong_side']} | {c['right_when_sided']} | "
                     + " | ".join(scores) + f" | {'–' if secs is None else f'{secs:.1f}'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    p.add_argument("--save-dev-sides", action="store_true",
                   help=f"write the dev runs' claim-level tables to {DEV_SIDES.relative_to(REPO_ROOT)} (a run it does "
                   "not hold yet is read from its predictions file)")
    args = p.parse_args(argv)
    rows = rows_of(args.out)
    if not rows:
        print(f"no study report under {args.out}: run a study's report first", file=sys.stderr)
        return 2
    command = "python -m evals.studies.judge_variants" + ("" if argv is None else " " + " ".join(argv))
    dev = dev_rows()
    if args.save_dev_sides:
        DEV_SIDES.write_text(json.dumps({"command": command, "git_commit": git_commit(), "runs": sides_of(dev)},
                                        indent=2) + "\n")
    (args.out / "judge_variants.md").write_text(markdown(rows, dev, command))
    print(f"{len(rows)} judges -> {args.out / 'judge_variants.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
