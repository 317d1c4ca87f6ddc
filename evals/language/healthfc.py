"""A claim in German and its English version, checked as the product checks them (evals.language.both_ways):
HealthFC's claims (written in German, each with an English version; read from ../shared/data/healthfc as it is
stored, evaluation only), drawn with a fixed seed.

    python -m evals.language.healthfc [--n 300] [--seed 13] [--records DIR] [--out FILE]

Each pair's record is appended to ``--records`` (outside the repository: it holds HealthFC's text, whose licence
allows no copy) as soon as it is done, so a run stopped for time resumes where it stopped. The report (figures and row
numbers only) goes to ``--out``.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from evals.experiments import REPO_ROOT, git_commit
from evals.language.both_ways import RESULTS, Pair, add_arguments, compared, publish, table
from evals.language.recognition import healthfc_pairs


def drawn(total: int, n: int, seed: int) -> list[int]:
    """``n`` of ``total`` row numbers drawn with ``seed``, in the order they are checked."""
    return random.Random(seed).sample(range(total), n)


def report(recs: list[dict[str, Any]], n: int, seed: int) -> str:
    differs = [r["key"] for r in recs if r["asked"]["side"] != r["en"]["side"]]
    return f"""# A claim in German and its English version (HealthFC)

`python -m evals.language.healthfc --n {n} --seed {seed}` (commit {git_commit()}): {len(recs)} of the {n} drawn claims
checked so far, each twice through the judged verdict on the embedded defaults: its German wording as the product
translates it, and its English version. Rows are HealthFC's, numbered from 0 in `Datensatz.csv`; no claim text is kept
here (its licence allows no copy).

{table(recs, "de")}

Rows whose two checks take different sides: {", ".join(differs) or "none"}.
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    add_arguments(ap, REPO_ROOT.parent / "healthfc_run" / "records.jsonl", RESULTS / "healthfc.md")
    args = ap.parse_args(argv)
    text = healthfc_pairs()
    pairs = [Pair(str(k), *text[k]) for k in drawn(len(text), args.n, args.seed)]
    publish(report(compared(pairs, args), args.n, args.seed), args.out)


if __name__ == "__main__":
    main()
