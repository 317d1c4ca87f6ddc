"""The one table of judge variants (evals.studies.judge_variants): a row per judge of each committed study report,
its study's claim count beside it, and a clear exit when no report is there."""

from __future__ import annotations

import json
from pathlib import Path

from evals.studies.judge_variants import main, markdown, rows_of

CELL = {"claims": 3, "right": 1, "wrong": 1, "none": 1}
JUDGE = {"llm_calls_per_abstract": 3, "label_only": {"precision": 0.6, "recall": 0.3, "f1": 0.4},
         "claims": {"SUPPORT": CELL, "CONTRADICT": {**CELL, "right": 2, "none": 0}, "NEI": CELL, "settled": 6,
                    "right_of_settled": 0.5, "right_when_sided": 0.6, "wrong_side": 2}}


def test_each_judge_of_each_report_is_a_row(tmp_path: Path) -> None:
    (tmp_path / "in_context.json").write_text(json.dumps({"claims": 122, "judges": {"shipped": JUDGE}}))
    (tmp_path / "generated_context.json").write_text(json.dumps({"claims": 14, "judges": {"with context": JUDGE}}))
    (tmp_path / "neither_choice.json").write_text(json.dumps({"claims": 122, "judges": {"old": {"label_only": {}}}}))
    rows = rows_of(tmp_path)
    assert [(r["study"], r["judge"], r["claims_in_study"]) for r in rows] == [
        ("in_context", "shipped", 122), ("generated_context", "with context", 14)]  # a report without sides: none
    text = markdown(rows, None, "cmd")
    assert "| [generated_context](generated_context.md) | with context | 14 | 3 | 1 / 1 / 1 | 2 / 1 / 0 | – / 1 / 1 |" \
        in text
    assert "No committed dev run." in text


def test_no_report_is_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["--out", str(tmp_path)]) == 2
    assert "no study report" in capsys.readouterr().err
