"""Every judge variant the studies measured, in one table: the verdict's side per held-out claim by gold class and
Label-Only P/R/F1, each from its study's out-of-fold labels on the judge's replay of held-out SciFact train claims,
beside the shipped judge's claim-level figures on SciFact dev.

    python -m evals.studies.judge_variants [--out evals/results]

It reads the studies' committed reports (evals/results/<study>.json, written by `python -m evals.studies.<study>
report`) and the dev run's predictions (`claimtrace eval scifact`); it asks no LLM. A study run on fewer claims than
the others (a partial `ask`) is on other folds, and its row says how many claims it holds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, git_commit
from evals.scifact.claim_level import GOLD_CLASSES

STUDIES = ["bearing_question", "neither_choice", "in_context", "generated_context"]
DEV_PREDICTIONS = REPO_ROOT / "evals" / "results" / "scifact_dev_judgement.predictions.jsonl.gz"


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


def dev_row() -> dict[str, Any] | None:
    """The shipped judge's verdict side per SciFact dev claim, from the committed dev run."""
    from agent.settings.app import get_settings
    from evals.scifact.claim_level import claim_sides
    from evals.scifact.data import load_claims
    from evals.scifact.records import read_records

    if not DEV_PREDICTIONS.is_file():
        return None
    return claim_sides(read_records(DEV_PREDICTIONS), load_claims(get_settings().stores.corpus_mirror, "dev", None))


def markdown(rows: list[dict[str, Any]], dev: Mapping[str, Any] | None, command: str) -> str:
    lines = [
        "# Every judge variant, one table",
        "",
        f"`{command}` — commit {git_commit()}. Each row is one judge of one study on the judge's replay of held-out "
        "SciFact train claims: its gate, direction and threshold fitted on four folds of claims, labelling the fifth "
        "(evals/studies/replay_folds.py). The verdict's side is the sign of the mean score of the papers that count. "
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
        cells = [f"{'–' if g == 'NEI' else c[g]['right']} / {c[g]['wrong']} / {c[g]['none']}" for g in GOLD_CLASSES]
        lines.append(f"| [{r['study']}]({r['study']}.md) | {r['judge']} | {r['claims_in_study']} | "
                     f"{r.get('llm_calls_per_abstract', '–')} | " + " | ".join(cells)
                     + f" | {c['right_of_settled']} | {c['right_when_sided']} | {s['precision']} | {s['recall']} "
                     f"| {s['f1']} |")
    lines += ["", "## SciFact dev, the judge of the committed full run", ""]
    if dev is None:
        lines.append("No committed dev run.")
    else:
        lines += [
            "From the committed dev run ([claim_level_dev.md](claim_level_dev.md)): right side on "
            f"{dev['right_of_settled']} of the {dev['settled']} claims the corpus settles, {dev['wrong_side']} on the "
            "wrong side. That run is of the judge that asked of the claim alone; no other variant has a full dev "
            "run yet.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    rows = rows_of(args.out)
    if not rows:
        print(f"no study report under {args.out}: run a study's report first", file=sys.stderr)
        return 2
    command = "python -m evals.studies.judge_variants" + ("" if argv is None else " " + " ".join(argv))
    (args.out / "judge_variants.md").write_text(markdown(rows, dev_row(), command))
    print(f"{len(rows)} judges -> {args.out / 'judge_variants.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
