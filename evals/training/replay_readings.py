"""The judge's replay (evals/training/bearing_replay.py) read as another judge reads it: the LLM's answers that the
in-context study (retired, evals/studies/README.md) recorded for the same abstracts (the bearing question on the
abstract around the evidence, or on the shown sentences of the claim and of its opposite; the direction on the
abstract around the
evidence), put in place of the replay's own, for evals/training/judge_calibration.py to fit."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT

# the in-context study's answers: the bearing question on the abstract around the evidence
IN_CONTEXT = REPO_ROOT / "evals" / "results" / "in_context" / "answers.jsonl"
# and the shipped question on the shown sentences, of the claim and of its opposite
SHOWN_OPPOSITE = IN_CONTEXT.with_name("shown_opposite.jsonl")
# and the direction's question on the abstract around the evidence
DIRECTION_IN_CONTEXT = IN_CONTEXT.with_name("direction_in_context.jsonl")


def read_answers(path: Path) -> list[dict[str, Any]]:
    """A study's answers file (one JSON row per abstract), or none when it is not there yet."""
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def answered(rows: Sequence[dict[str, Any]], path: Path,
             patch: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]) -> list[dict[str, Any]]:
    """The replay's claims whose every abstract has an answer in ``path`` (one of the in-context study's
    files), each abstract patched with its answer; claims missing an answer are left out."""
    got = {a["pair"]: a for a in read_answers(path)}
    out = []
    for r in rows:
        answers = [got[key] for d in r["docs"] if (key := f"{r['claim']}:{d['doc_id']}") in got]
        if len(answers) == len(r["docs"]):
            out.append({**r, "docs": [patch(d, a) for d, a in zip(r["docs"], answers, strict=True)]})
    return out


def gate_reading(rows: Sequence[dict[str, Any]], reads: str, asks_opposite: bool,
                 combines: str = "mean") -> list[dict[str, Any]]:
    """The replay's claims with the LLM's P(Yes) of the reading named (``combines``: the mean or the higher of the
    claim's and the opposite's)."""
    from agent.judge.calibration import JudgeCalibration

    path, (first, second) = ((IN_CONTEXT, ("p_bears", "p_bears_opposite")) if reads == "context"
                             else (SHOWN_OPPOSITE, ("p_shown_bears", "p_shown_bears_opposite")))
    combined = JudgeCalibration(gate_combines=combines)
    return answered(rows, path, lambda d, a: {
        **d, "llm_p_bears": combined.llm_bears(a[first], a[second]) if asks_opposite else a[first]})


def direction_reading(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The replay's claims with the LLM's P(claim) on the abstract around the evidence."""
    return answered(rows, DIRECTION_IN_CONTEXT, lambda d, a: {**d, "llm_p_claim": a["p_claim_context"]})
