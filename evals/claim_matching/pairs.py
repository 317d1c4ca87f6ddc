"""Labelled claim pairs for "checked before": is a kept check's claim the `same` as a new claim, its `opposite`, or
only `related`? Each line of pairs.jsonl holds a split (`fit`: SciFact train claims, for tuning thresholds;
`report`: SciFact dev claims, only measured), two sides, the label and a short note on how the pair differs.
A side is either text written by hand for this set or a SciFact claim named by split and id
(`{"scifact": "dev", "id": 743}`); SciFact's text is not stored here and is read from the data folder.
SciFact-to-SciFact pairs are claims that cite the same abstract; every pair is read and labelled by hand."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAIRS = HERE / "pairs.jsonl"
SCIFACT = HERE.parents[1].parent / "shared" / "data" / "scifact"
LABELS = ("same", "opposite", "related")
SPLITS = {"fit": "train", "report": "dev"}  # pair split -> the only SciFact split its references may name


@dataclass(frozen=True)
class Pair:
    split: str
    a: str
    b: str
    label: str
    how: str


def _claims(scifact_dir: Path, split: str) -> dict[int, str]:
    path = scifact_dir / f"claims_{split}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"SciFact claims not found: {path} (the claim pairs name SciFact claims by id)")
    with path.open(encoding="utf-8") as f:
        return {rec["id"]: rec["claim"] for rec in map(json.loads, filter(str.strip, f))}


def _side(side: str | dict[str, object], split: str, claims: dict[int, str], path: Path, line: int) -> str:
    if isinstance(side, str):
        return side
    if side.get("scifact") != SPLITS[split]:
        raise ValueError(f"{path}:{line}: a {split!r} pair may name SciFact {SPLITS[split]!r} claims only: {side}")
    claim_id = side.get("id")
    if not isinstance(claim_id, int) or claim_id not in claims:
        raise LookupError(f"{path}:{line}: SciFact {SPLITS[split]} claim id {claim_id!r} not found in claims_"
                       f"{SPLITS[split]}.jsonl")
    return claims[claim_id]


def load_pairs(scifact_dir: Path = SCIFACT, path: Path = PAIRS) -> list[Pair]:
    """Every pair of `path`, SciFact references replaced by the claim text read from `scifact_dir`."""
    if not scifact_dir.is_dir():
        raise FileNotFoundError(f"SciFact data folder not found: {scifact_dir} (needed to resolve {path.name})")
    claims = {split: _claims(scifact_dir, split) for split in SPLITS.values()}
    pairs = []
    with path.open(encoding="utf-8") as f:
        for line, text in enumerate(f, 1):
            if not text.strip():
                continue
            rec = json.loads(text)
            split, label = rec["split"], rec["label"]
            if split not in SPLITS or label not in LABELS:
                raise ValueError(f"{path}:{line}: unknown split {split!r} or label {label!r}")
            known = claims[SPLITS[split]]
            a, b = (_side(rec[k], split, known, path, line) for k in ("a", "b"))
            pairs.append(Pair(split=split, a=a, b=b, label=label, how=rec["how"]))
    return pairs
