"""The verdict a user sees, claim by claim, against SciFact's labels: per gold class, how many claims the verdict
puts on the right side, on the wrong side, or on no side ("Not enough evidence", or a controversy with no lean).

A claim's gold class is SUPPORT or CONTRADICT when every evidence set the annotators gave it has that label, NEI
when it has none (SciFact's corpus has nothing on it). For an NEI claim the right answer is no side. The headline
figures are the share of the settled claims (SUPPORT or CONTRADICT) whose verdict takes the right side, the claims
on the wrong side, and the share right of all the verdicts that take a side (a side taken on an NEI claim is wrong).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.judge.scoring import GRADE_SCORE, verdict_sign, weighted_verdict

GOLD_CLASSES = ("SUPPORT", "CONTRADICT", "NEI")
SIGN = {"SUPPORT": 1, "CONTRADICT": -1, "NEI": 0}


def gold_class(labels: Sequence[str]) -> str:
    """SUPPORT or CONTRADICT when all the claim's evidence labels agree, NEI when there are none; "MIXED" when they
    disagree (SciFact's claims do not, but a claim that did would be left out of every cell)."""
    kinds = set(labels)
    if not kinds:
        return "NEI"
    return kinds.pop() if len(kinds) == 1 else "MIXED"


def scifact_class(claim: Mapping[str, Any]) -> str:
    return gold_class([s["label"] for sets in claim["evidence"].values() for s in sets])


def side_table(pairs: Sequence[tuple[str, int]]) -> dict[str, Any]:
    """(gold class, the verdict's sign) per claim -> per class right / wrong / none, and the headline shares."""
    table: dict[str, Any] = {g: {"claims": 0, "right": 0, "wrong": 0, "none": 0} for g in GOLD_CLASSES}
    for gold, sign in pairs:
        if gold not in table:
            continue
        cell = table[gold]
        cell["claims"] += 1
        if sign == 0:
            cell["none"] += 1
        elif gold == "NEI" or sign != SIGN[gold]:
            cell["wrong"] += 1
        else:
            cell["right"] += 1
    table["NEI"]["right"] = table["NEI"]["none"]  # no side is the right answer to a claim the corpus cannot settle
    settled = [table[g] for g in ("SUPPORT", "CONTRADICT")]
    claims = sum(c["claims"] for c in settled)
    right = sum(c["right"] for c in settled)
    sided = right + sum(c["wrong"] for c in settled) + table["NEI"]["wrong"]
    table["settled"] = claims
    table["right_of_settled"] = round(right / claims, 3) if claims else None
    table["right_when_sided"] = round(right / sided, 3) if sided else None
    table["wrong_side"] = sum(c["wrong"] for c in settled)
    return table


def claim_sides(records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The table of an eval run, from each record's verdict label."""
    by_id = {int(r["id"]): r for r in records}
    return side_table(
        [(scifact_class(c), verdict_sign(by_id[int(c["id"])]["result"]["verdict"]["label"]))
         for c in claims if int(c["id"]) in by_id]
    )


def replay_sides(rows: Sequence[Mapping[str, Any]], labels: Mapping[str, tuple[str, float] | None],
                 gold: Mapping[int, str]) -> dict[str, Any]:
    """The table of a judge's labels on the judge's replay (evals/training/bearing_replay.py): each claim's verdict
    from the papers its labels count, weighted alike (the replay holds no reputations); ``gold`` maps claim id to its
    gold class."""
    pairs = []
    for r in rows:
        scored = [(GRADE_SCORE[got[0]], 1.0) for d in r["docs"] if (got := labels.get(d["pair"])) is not None]
        pairs.append((gold[int(r["claim"])], verdict_sign(weighted_verdict(scored)[0])))
    return side_table(pairs)


def markdown_table(table: Mapping[str, Any]) -> list[str]:
    """The claim-level table as Markdown lines."""
    lines = [
        "| gold class | claims | right side | wrong side | no side (Not enough evidence) |",
        "|---|---:|---:|---:|---:|",
    ]
    names = {"SUPPORT": "supporting evidence", "CONTRADICT": "refuting evidence", "NEI": "no evidence in the corpus"}
    for g in GOLD_CLASSES:
        c = table[g]
        right = "–" if g == "NEI" else c["right"]
        lines.append(f"| {names[g]} | {c['claims']} | {right} | {c['wrong']} | {c['none']} |")
    lines += [
        "",
        f"Right side on {table['right_of_settled']} of the {table['settled']} claims the corpus settles, "
        f"{table['wrong_side']} of them on the wrong side; when the verdict takes a side it is right "
        f"{table['right_when_sided']} of the time (a side taken on a claim with no evidence is wrong).",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    """The claim-level table of a committed run, read back from its predictions file:

        python -m evals.scifact.claim_level evals/results/scifact_dev_judgement.predictions.jsonl.gz [--split dev]
    """
    import argparse

    from agent.settings.app import get_settings
    from evals.scifact.data import load_claims
    from evals.scifact.records import read_records

    p = argparse.ArgumentParser(description=main.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("predictions", type=Path)
    p.add_argument("--split", default="dev")
    p.add_argument("--data-dir", type=Path, default=None, help="the folder of claims_<split>.jsonl")
    p.add_argument("--limit", type=int, default=None, help="only the first N claims of the split")
    p.add_argument("--out", type=Path, default=None, help="also write the table, with this command, to a Markdown file")
    args = p.parse_args(argv)
    records = read_records(args.predictions)
    claims = load_claims(args.data_dir or get_settings().stores.corpus_mirror, args.split, args.limit)
    table = markdown_table(claim_sides(records, claims))
    print("\n".join(table))
    if args.out is not None:
        command = " ".join(["python -m evals.scifact.claim_level", *(argv if argv is not None else sys.argv[1:])])
        args.out.write_text("\n".join([f"# The verdict a user sees, claim by claim: {args.predictions.name}", "",
                                       f"`{command}`", "", *table, ""]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
