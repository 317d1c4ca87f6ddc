"""Load measurements of the chat tests: percentiles, and the report each writes (into evals/results when
CLAIMTRACE_E2E_RECORD=1, the committed measurement; otherwise beside the test), with the machine and the command."""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from tests.e2e.server import REPO


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def write_report(name: str, report: dict[str, Any], test_file: str, tmp_path: Path) -> None:
    full = {
        **report,
        "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}",
        "command": f"CLAIMTRACE_E2E_RECORD=1 python -m pytest -q {test_file}",
    }
    out = REPO / "evals" / "results" / name if os.environ.get("CLAIMTRACE_E2E_RECORD") else tmp_path / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(full, indent=2) + "\n")
    print(json.dumps(full), file=sys.stderr)
