"""The claim-matching pairs resolved against the real SciFact claims: every reference names a claim with text, and
no hand-written side is a SciFact claim's text (SciFact text is named by id, never stored). Skips with a reason when
../shared/data/scifact is absent."""

from __future__ import annotations

import json
from collections import Counter

from evals.claim_matching.pairs import PAIRS, load_pairs
from tests.conftest import scifact_or_skip


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def test_every_reference_resolves_to_a_claim() -> None:
    root = scifact_or_skip()
    pairs = load_pairs(root)
    rows = [json.loads(ln) for ln in PAIRS.read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert len(pairs) == len(rows)
    for pair in pairs:
        assert pair.a.strip() and pair.b.strip(), pair
        assert _norm(pair.a) != _norm(pair.b), pair
    assert Counter(p.split for p in pairs) == Counter(row["split"] for row in rows)


def test_no_hand_written_side_is_scifact_text() -> None:
    root = scifact_or_skip()
    scifact = set()
    for split in ("train", "dev", "test"):
        with (root / f"claims_{split}.jsonl").open(encoding="utf-8") as f:
            scifact |= {_norm(json.loads(ln)["claim"]) for ln in f if ln.strip()}
    rows = [json.loads(ln) for ln in PAIRS.read_text(encoding="utf-8").splitlines() if ln.strip()]
    written = [side for row in rows for side in (row["a"], row["b"]) if isinstance(side, str)]
    assert [side for side in written if _norm(side) in scifact] == []
