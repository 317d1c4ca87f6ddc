"""The LLM's contrastive choices on SciFact pairs, as the direction-judge study (retired, evals/studies/README.md)
collected them: the answer cache (one JSONL row per question asked, keyed by what was asked) and the pairs each
set holds. The judge's calibration
(evals/training/judge_calibration.py) fits on the held-out set; the study reports on dev."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

CACHE_DIR = Path(__file__).resolve().parents[2] / "evals" / "results" / "direction_judge_cache"


def bare(premise: str) -> str:
    """The premise without the sentence before (what the LLM reads by default)."""
    return premise.split(" | before:")[0]


class Cache:
    """Rows keyed by what was asked, appended as they come."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for line in path.read_text().splitlines():
                row = json.loads(line)
                self.rows[row["key"]] = row

    @staticmethod
    def key(*parts: str) -> str:
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]

    def put(self, row: dict[str, Any]) -> None:
        self.rows[row["key"]] = row
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as fh:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def direction_rows(cache_dir: Path, name: str) -> list[dict[str, Any]]:
    """The pairs of one set the LLM was asked about, with its P(claim) (bare evidence, rule or template opposite)."""
    meta = json.loads((cache_dir / f"direction_judge_{name}_pairs.json").read_text())
    cache = Cache(cache_dir / f"direction_judge_{name}.jsonl")
    out = []
    for r in meta["rows"]:
        key = Cache.key("bare", bare(r["premise"]), r["claim"], meta["opposites"][r["claim"]][0])
        if key in cache.rows:
            out.append({**r, "llm": cache.rows[key]["p_claim"], "orders": cache.rows[key]["orders"],
                        "opposite_how": meta["opposites"][r["claim"]][1]})
    return out
