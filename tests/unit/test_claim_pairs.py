"""The claim-matching pairs (evals/claim_matching/pairs.jsonl), read as plain JSON without SciFact: every line well
formed, enough pairs of each label in each split, no pair twice, fit naming SciFact train claims only and report
SciFact dev claims only, and no pair whose two sides are the same text."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from evals.claim_matching.pairs import LABELS, PAIRS, SPLITS

KEYS = {"split", "a", "b", "label", "how"}


def _rows() -> list[dict[str, Any]]:
    lines = [ln for ln in PAIRS.read_text(encoding="utf-8").splitlines() if ln.strip()]
    rows = [json.loads(ln) for ln in lines]
    assert all(isinstance(row, dict) for row in rows)
    return rows


def _side_key(side: Any) -> tuple[str, str | int]:
    if isinstance(side, str):
        return "text", " ".join(side.split()).casefold()
    return f"scifact:{side['scifact']}", side["id"]


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


def test_every_line_is_a_well_formed_pair(rows: list[dict[str, Any]]) -> None:
    for n, row in enumerate(rows, 1):
        assert set(row) == KEYS, (n, row)
        assert row["split"] in SPLITS and row["label"] in LABELS, (n, row)
        assert isinstance(row["how"], str) and row["how"].strip(), (n, row)
        for side in (row["a"], row["b"]):
            if isinstance(side, str):
                assert side.strip() == side and len(side) > 10, (n, side)
            else:
                assert isinstance(side, dict) and set(side) == {"scifact", "id"}, (n, side)
                assert isinstance(side["id"], int) and not isinstance(side["id"], bool), (n, side)


def test_each_split_is_large_enough_and_has_every_label(rows: list[dict[str, Any]]) -> None:
    per_split = Counter(row["split"] for row in rows)
    per_label = Counter((row["split"], row["label"]) for row in rows)
    for split in SPLITS:
        assert per_split[split] >= 120, per_split
        for label in LABELS:
            assert per_label[split, label] >= 30, per_label


def test_no_pair_is_repeated(rows: list[dict[str, Any]]) -> None:
    keys = Counter(frozenset((_side_key(row["a"]), _side_key(row["b"]))) for row in rows)
    assert [key for key, n in keys.items() if n > 1] == []


def test_references_stay_in_their_split(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        for side in (row["a"], row["b"]):
            if isinstance(side, dict):
                assert side["scifact"] == SPLITS[row["split"]], row  # fit: train only; report: dev only


def test_the_two_sides_of_a_pair_differ(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        assert _side_key(row["a"]) != _side_key(row["b"]), row
