"""A claim in German and its English version, checked as the product checks them (evals.language.both_ways):
HealthFC's claims (written in German, each with an English version; read from ../shared/data/healthfc as it is
stored, evaluation only), drawn with a fixed seed.

    python -m evals.language.healthfc [--n 300] [--seed 13] [--records DIR] [--out FILE] [--english-twice]

With ``--english-twice`` each drawn claim's English version is checked twice instead (nothing is translated): how
often the product agrees with itself on the same words bounds what any translation can reach.

Each pair's record is appended to ``--records`` (outside the repository: it holds HealthFC's text, whose licence
allows no copy) as soon as it is done, so a run stopped for time resumes where it stopped. The report (figures and row
numbers only) goes to ``--out``.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from evals.experiments import REPO_ROOT, git_commit
from evals.language.both_ways import (
    RESULTS,
    TOP,
    Pair,
    add_arguments,
    compared,
    median,
    publish,
    same_side,
    same_top,
    share,
    shared_top,
    table,
)
from evals.language.recognition import healthfc_pairs


def drawn(total: int, n: int, seed: int) -> list[int]:
    """``n`` of ``total`` row numbers drawn with ``seed``, in the order they are checked."""
    return random.Random(seed).sample(range(total), n)


def report(recs: list[dict[str, Any]], n: int, seed: int) -> str:
    differs = [r["key"] for r in recs if not same_side(r)]
    return f"""# A claim in German and its English version (HealthFC)

`python -m evals.language.healthfc --n {n} --seed {seed}` (commit {git_commit()}): {len(recs)} of the {n} drawn claims
checked so far, each twice through the judged verdict on the embedded defaults: its German wording as the product
translates it, and its English version. Rows are HealthFC's, numbered from 0 in `Datensatz.csv`; no claim text is kept
here (its licence allows no copy).

{table(recs, "de")}

Rows whose two checks take different sides: {", ".join(differs) or "none"}.
"""


def twice_report(recs: list[dict[str, Any]], n: int, seed: int) -> str:
    k = len(recs)
    counted = [r for r in recs if r["asked"]["counts_a_paper"] or r["en"]["counts_a_paper"]]
    overlap = sum(map(shared_top, recs)) / k if k else 0.0
    secs = {part: median([r["seconds"][part] for r in recs]) for part in ("asked", "en")}
    differs = [r["key"] for r in recs if not same_side(r)]
    return f"""# The same English claim checked twice (HealthFC's English versions)

`python -m evals.language.healthfc --n {n} --seed {seed} --english-twice` (commit {git_commit()}): {len(recs)} of the
{n} drawn claims' English versions, each checked twice in a row through the judged verdict on the embedded defaults,
nothing translated. How often the product agrees with itself bounds what a translation can reach in `healthfc.md`.

| measure | result |
|---|---|
| the same verdict side (supported, refuted, neither) | {share(k - len(differs), k)} |
| the same side, of the claims where either check counts a paper | {share(sum(map(same_side, counted)), len(counted))} |
| the same top {TOP} papers (as a set) | {share(sum(map(same_top, recs)), k)} |
| top-{TOP} papers shared, mean | {overlap:.2f} of {TOP} |

Seconds a check (median): the first {secs["asked"]:.1f}, the second {secs["en"]:.1f}.

Rows whose two checks take different sides: {", ".join(differs) or "none"}.
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--english-twice", action="store_true", help="check each English version twice instead")
    add_arguments(ap, REPO_ROOT.parent / "healthfc_run" / "records.jsonl", RESULTS / "healthfc.md")
    args = ap.parse_args(argv)
    text = healthfc_pairs()
    keys = drawn(len(text), args.n, args.seed)
    if args.english_twice:
        pairs = [Pair(str(k), text[k][1], text[k][1]) for k in keys]
        publish(twice_report(compared(pairs, args), args.n, args.seed), args.out)
        return
    pairs = [Pair(str(k), *text[k]) for k in keys]
    publish(report(compared(pairs, args), args.n, args.seed), args.out)


if __name__ == "__main__":
    main()
