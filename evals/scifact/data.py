"""SciFact claims and their gold labels: the evidence abstracts, the cited abstracts (BEIR's qrels) and the
rationale sentences."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = REPO_ROOT / "evals" / "results"
SPLITS = ("dev", "train")


def load_claims(root: Path, split: str, limit: int | None = None) -> list[dict[str, Any]]:
    """The first ``limit`` claims of ``claims_<split>.jsonl`` in file order. Raises CliError."""
    if split not in SPLITS:
        raise CliError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}", EXIT_INPUT)
    path = root / f"claims_{split}.jsonl"
    if not path.is_file():
        raise CliError(
            f"SciFact claims not found at {path} (set CORPUS_MIRROR to the folder holding claims_{split}.jsonl)",
            EXIT_UNAVAILABLE,
        )
    claims = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if any("evidence" not in c for c in claims):
        raise CliError(f"{path} has claims without labels (the test split cannot be evaluated)", EXIT_INPUT)
    return claims[:limit] if limit is not None else claims


HELDOUT_SEED = 13  # the verifier training's held-out split: same seed and fraction
HELDOUT_FRACTION = 0.15


def heldout_claims(root: Path) -> list[dict[str, Any]]:
    """The train claims held out from verifier training (grouped by claim text, as the training split does)."""
    claims = load_claims(root, "train")
    texts = sorted({c["claim"].strip() for c in claims})
    random.Random(HELDOUT_SEED).shuffle(texts)
    held = set(texts[: int(len(texts) * HELDOUT_FRACTION)])
    return [c for c in claims if c["claim"].strip() in held]


def evidence_qrels(claims: Iterable[Mapping[str, Any]]) -> dict[int, set[str]]:
    """claim id -> evidence doc ids (empty for NEI claims; retrieval_report skips those)."""
    return {int(c["id"]): {str(d) for d in c["evidence"]} for c in claims}


def cited_qrels(claims: Iterable[Mapping[str, Any]]) -> dict[int, set[str]]:
    """claim id -> cited_doc_ids (BEIR's qrels)."""
    return {int(c["id"]): {str(d) for d in c.get("cited_doc_ids", [])} for c in claims}


def gold_sentences(claim: Mapping[str, Any]) -> set[tuple[str, int]]:
    """(doc_id, sentence_index) of every sentence in any gold rationale set of the claim."""
    return {
        (str(doc_id), int(i))
        for doc_id, rationales in claim["evidence"].items()
        for r in rationales
        for i in r["sentences"]
    }
