"""The shape of the code: layers point down (ui -> evals -> agent -> tools | prompts) with no import cycles, as
the import-linter contracts in pyproject.toml say, and the `ask` command loads no evaluation code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "2 kept, 0 broken" in run.stdout


def test_ask_does_not_import_the_eval_runner():
    code = (
        "import sys, json; from ui.terminal.cli import main; main(['ask', '   ']); "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'evals')))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert "the claim is empty" in run.stderr
    loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(loaded) <= {"evals", "evals.scifact", "evals.scifact.cli", "evals.scifact.data"}, loaded
