"""What the experiment scripts share: the header of a result (command, date, commit, claims) and writing a result
as JSON and Markdown."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]


def git_commit(repo: Path = REPO_ROOT) -> str | None:
    """HEAD's commit by `git rev-parse`; None outside a checkout or without git."""
    try:
        run = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if run.returncode != 0:
        return None
    return run.stdout.strip() or None


def experiment_header(
    module: str, argv: list[str] | None, split: str, claims: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """What every experiment result starts with: the command that made it, when, at which commit, on which claims."""
    return {
        "command": f"python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "split": split,
        "claims": len(claims),
        "claims_with_evidence": sum(bool(c["evidence"]) for c in claims),
    }


def write_experiment(
    out: Path, name: str, res: Mapping[str, Any], markdown: Callable[[Mapping[str, Any]], str]
) -> None:
    """``out/<name>.json`` and ``.md``; the Markdown is printed too."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(res, indent=2) + "\n")
    (out / f"{name}.md").write_text(markdown(res))
    print(markdown(res))
