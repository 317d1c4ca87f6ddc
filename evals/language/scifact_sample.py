"""Spanish, French and Portuguese claims and their English versions, checked as the product checks them
(evals.language.both_ways): ten SciFact dev claims drawn with seed 13, each translated by hand into the three
languages (``scifact_sample.jsonl``: the claim's id and the translation; the English is read from
../shared/data/scifact at run time). The translations were written for this sample by the session that built it (a
language model writing as a translator, not a native speaker), then read back against the English, keeping every
name, abbreviation, qualifier and direction; they were never shown to the product's LLM before the run.

    python -m evals.language.scifact_sample [--records FILE] [--out FILE] [--report-only]

Records go outside the repository (they hold SciFact's claim text) and resume where a run stopped; the report
(figures and claim ids only) goes to ``--out``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, git_commit
from evals.language.both_ways import Pair, kept, run, table
from tools.text.language import LANGUAGES

SAMPLE = Path(__file__).with_name("scifact_sample.jsonl")
DEV = REPO_ROOT.parent / "shared" / "data" / "scifact" / "claims_dev.jsonl"


def pairs() -> list[Pair]:
    """Each translated claim with its English version from SciFact dev, keyed "<language>:<claim id>"."""
    english = {r["id"]: r["claim"] for r in map(json.loads, DEV.read_text().splitlines())}
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    return [Pair(f"{r['language']}:{r['id']}", r["claim"], english[r["id"]]) for r in rows]


def report(recs: list[dict[str, Any]], total: int) -> str:
    parts = [f"""# Spanish, French and Portuguese claims and their English versions (SciFact dev, hand-translated)

`python -m evals.language.scifact_sample` (commit {git_commit()}): {len(recs)} of the {total} translated claims
checked, each twice through the judged verdict on the embedded defaults: its wording as the product translates it,
and SciFact's English. Ten SciFact dev claims (seed 13), translated by hand into each language
(`evals/language/scifact_sample.jsonl`; how they were made: `evals/language/scifact_sample.py`)."""]
    for code in ("es", "fr", "pt"):
        mine = [r for r in recs if r["key"].startswith(f"{code}:")]
        differs = [r["key"].split(":")[1] for r in mine if r["asked"]["side"] != r["en"]["side"]]
        parts.append(f"## {LANGUAGES[code]}\n\n{table(mine, code)}\n\nClaims whose two checks take different sides: "
                     f"{', '.join(differs) or 'none'}.")
    translations = "\n".join(f"| {r['key']} | {r['as_translated'] == ' '.join(r['english'].split())} | "
                             f"{r['asked']['side']} / {r['en']['side']} |" for r in recs)
    parts.append("## Claim by claim\n\nThe product's English translation equal to SciFact's English word for word; "
                 "the verdict sides (1 supported, -1 refuted, 0 neither), translated / English.\n\n"
                 f"| claim | same words | sides |\n|---|---|---|\n{translations}")
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=Path, default=REPO_ROOT.parent / "language_sample" / "records.jsonl")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results" / "language" / "scifact_sample.md")
    ap.add_argument("--report-only", action="store_true", help="write the report from the records so far")
    args = ap.parse_args(argv)
    args.records.parent.mkdir(parents=True, exist_ok=True)
    todo = pairs()
    recs = kept(todo, args.records) if args.report_only else run(todo, args.records)
    written = report(recs, len(todo))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(written)
    print(written)


if __name__ == "__main__":
    main()
