"""Feedback on verification: stored with claim, sentence, sources and verifier scores; exported as JSONL by
`claimtrace feedback export`; and the `ui` command's one-line errors."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.result import CheckResult
from agent.settings.app import get_settings
from agent.store.feedback import export_jsonl, iter_feedback, record_feedback
from tests.unit.test_ui_render import RESULT as RESULT_JSON
from ui.terminal.cli import main

RESULT = CheckResult.model_validate(RESULT_JSON)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_record_keeps_what_retraining_needs(tmp_path: Path):
    record_feedback(tmp_path, "thread-1", RESULT, 3, "flag_wrong")
    record_feedback(tmp_path, "thread-1", RESULT, 1, "unsupported")
    first, second = iter_feedback(tmp_path)
    assert first["kind"] == "flag_wrong" and first["thread_id"] == "thread-1" and first["id"] == 1
    assert first["claim"] == "X causes Y." and first["sentence"] == "X causes Y." and first["sentence_index"] == 3
    assert first["verifier"]["status"] == "contradicted" and first["verifier"]["score"] == -0.9
    assert [s["n"] for s in first["sources"]] == [2] and first["sources"][0]["sentence"] == "Evidence sentence 2."
    assert first["sources"][0]["context"] == "The sentence before."
    assert second["kind"] == "unsupported" and [s["n"] for s in second["sources"]] == [1, 2]
    with pytest.raises(IndexError):
        record_feedback(tmp_path, "thread-1", RESULT, 4, "unsupported")


def test_export_writes_one_json_object_per_line(tmp_path: Path):
    assert export_jsonl(tmp_path, io.StringIO()) == 0  # nothing recorded yet, no database created
    record_feedback(tmp_path, "t", RESULT, 2, "flag_wrong")
    out = io.StringIO()
    assert export_jsonl(tmp_path, out) == 1
    (line,) = out.getvalue().splitlines()
    assert json.loads(line)["verifier"]["reason"].startswith("cites no existing source")


def test_feedback_export_command(data_dir: Path, capsys: pytest.CaptureFixture[str]):
    record_feedback(data_dir, "t", RESULT, 1, "unsupported")
    out = data_dir / "feedback.jsonl"
    assert main(["feedback", "export", "--out", str(out)]) == 0
    assert "1 feedback record(s) written" in capsys.readouterr().err
    assert json.loads(out.read_text())["sentence"] == "Studies found no link."
    assert main(["feedback", "export"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "unsupported"
    assert main(["feedback", "export", "--out", str(data_dir / "missing" / "x.jsonl")]) == 2
    assert capsys.readouterr().err.startswith("claimtrace: cannot write")


def test_ui_command_errors_are_one_line(data_dir: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["ui", "--port", "0"]) == 2
    assert "--port must be between 1 and 65535" in capsys.readouterr().err
    assert main(["ui"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("claimtrace: no index at") and err.count("\n") == 1
