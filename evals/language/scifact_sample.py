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
from evals.language.both_ways import RESULTS, Pair, add_arguments, compared, publish, same_side, table
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
        differs = [r["key"].split(":")[1] for r in mine if not same_side(r)]
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
    add_arguments(ap, REPO_ROOT.parent / "language_sample" / "records.jsonl", RESULTS / "scifact_sample.md")
    args = ap.parse_args(argv)
    todo = pairs()
    publish(report(compared(todo, args), len(todo)), args.out)


if __name__ == "__main__":
    main()
