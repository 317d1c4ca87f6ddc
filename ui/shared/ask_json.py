"""The JSON of one check, as `claimtrace ask --json` prints it and the MCP tool `check_claim` returns it: the check
result (agent.result.CheckResult), the notes about the claim before its own, and the consensus line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.judge.consensus import consensus
from agent.result import CheckResult


def ask_json(checked: CheckResult, notes: Sequence[str] = ()) -> dict[str, Any]:
    """``checked`` as JSON, ``notes`` (what the claim's wording warned of) first among its notes."""
    result: dict[str, Any] = checked.model_dump(mode="json")
    result["notes"] = [*notes, *result["notes"]]
    result["consensus"] = consensus(checked).model_dump(mode="json")
    return result
