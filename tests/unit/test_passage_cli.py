"""`claimtrace check-text`: one clear line and exit code 2 for text it cannot read, a stated reason when no sentence
is checkable, a note when the text is cut at its limit, and one JSON object with every claim's full check."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent.llm.scripted import ScriptedChatModel
from agent.state import Deps
from tests.conftest import RuleVerifier
from tests.library_files import blank_pdf, plain_pdf
from ui.terminal.cli import main


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch, settings: Any, tiny_index: Any) -> None:
    """The CLI on the tiny corpus with a scripted LLM that reads every source as against the claim."""
    deps = Deps(settings=settings, llm=ScriptedChatModel(rules=[
        {"when": "Which statement does the evidence support?", "choose": " not "},
        {"when": "<evidence>", "reply": "The trial found no effect [1]."},
        {"reply": "{}"},
    ]), index=tiny_index, verifier=RuleVerifier({"did not reduce": "contradicts"}))  # fmt: skip
    monkeypatch.setattr("agent.service.load_deps", lambda s: deps)
    monkeypatch.setattr("agent.settings.app.get_settings", lambda: settings)


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"  \n ", "the text is empty; paste a paragraph", id="empty"),
        pytest.param(b"\xff\xfe caf\xe9", "standard input is not UTF-8 text", id="not_utf8"),
        pytest.param(b"Coffee\x00 lowers gout.", "the text contains binary control characters", id="binary"),
    ],
)
def test_unreadable_text_is_refused_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, data: bytes, message: str
) -> None:
    _stdin(monkeypatch, data)
    assert main(["check-text", "-"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"claimtrace: {message}") and captured.out == ""


def test_a_scanned_pdf_and_a_missing_file_are_named(tmp_path: Path, capsys: Any) -> None:
    assert main(["check-text", str(blank_pdf(tmp_path))]) == 2
    assert "no text" in capsys.readouterr().err
    assert main(["check-text", str(tmp_path / "gone.txt")]) == 2
    assert "gone.txt: no such file" in capsys.readouterr().err
    assert main(["check-text", "-", "--out", str(tmp_path / "x.docx")]) == 2
    assert "--out must end in one of .md, .json, .bib, .ris" in capsys.readouterr().err


@pytest.mark.usefixtures("scripted")
def test_text_without_findings_says_why(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    _stdin(monkeypatch, b"We aimed to study coffee. Patients were recruited in 2020. Coffee is popular.")
    assert main(["check-text", "-"]) == 0
    out = capsys.readouterr().out
    assert "No sentence of the text states a checkable finding" in out
    assert "We aimed to study coffee. (states an aim)" in out


@pytest.mark.usefixtures("scripted")
def test_a_pdf_is_checked_and_the_json_holds_every_claim(tmp_path: Path, capsys: Any) -> None:
    pdf = plain_pdf(tmp_path)
    assert main(["check-text", str(pdf), "--json", "--out", str(tmp_path / "report.md")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"text", "claims", "skipped", "notes", "timings", "run"}
    assert all(c["result"] is None or "verdict" in c["result"] for c in result["claims"])
    assert (tmp_path / "report.md").read_text(encoding="utf-8").startswith("# claimtrace passage check")


@pytest.mark.usefixtures("scripted")
def test_a_long_text_is_cut_at_its_limit_with_a_note(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("MAX_PASSAGE_CHARS", "120")
    from agent.settings.app import Settings

    monkeypatch.setattr("agent.settings.app.get_settings", lambda: Settings(_env_file=None))  # type: ignore[call-arg]
    _stdin(monkeypatch, b"Vitamin D3 did not reduce the risk of fractures in older adults. " * 5)
    assert main(["check-text", "-", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["text"]) <= 120 and any("the limit is 120" in n for n in result["notes"])
    assert [c["same_as"] for c in result["claims"]] == [None]  # the one sentence kept, checked once


@pytest.mark.usefixtures("scripted")
def test_a_document_of_the_library_is_named_by_title_words_or_id(
    monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path, capsys: Any
) -> None:
    from tools.corpus import Abstract

    paper = Abstract(
        doc_id="lib:0123456789abcdef", title="Coffee drinking and sleep quality", source="library",
        sentences=["Drinking coffee after noon shortened sleep by forty minutes.",
                   "Coffee late in the day harms sleep."],
        sections=["Results", "Conclusion"],
    )
    other = paper.model_copy(update={"doc_id": "lib:fedcba9876543210", "title": "Coffee and gout"})
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    (index_dir / "live_docs.jsonl").write_text(paper.model_dump_json() + "\n" + other.model_dump_json() + "\n")
    with_library = settings.model_copy(update={"stores": settings.stores.model_copy(update={"index_dir": index_dir})})
    monkeypatch.setattr("agent.settings.app.get_settings", lambda: with_library)
    assert main(["check-text", "--library", "sleep quality", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["text"] == (
        "Drinking coffee after noon shortened sleep by forty minutes.\n\nCoffee late in the day harms sleep."
    )
    assert main(["check-text", "--library", "coffee"]) == 2
    assert "2 documents of your library match “coffee”" in capsys.readouterr().err
    assert main(["check-text", "--library", "LIB:FEDCBA9876543210", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"].startswith("Drinking coffee")
    assert main(["check-text", "--library", "tea"]) == 2
    assert "no document of your library (2) has" in capsys.readouterr().err


@pytest.mark.usefixtures("scripted")
def test_lang_chooses_the_language_it_prints_and_reports_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: Any
) -> None:
    """What it prints for a person and the .md report speak the passage's language, or --lang's; the claims stay as
    they were checked."""
    _stdin(monkeypatch, b"Vitamin D3 did not reduce the risk of fractures in older adults. We aimed to study coffee.")
    assert main(["check-text", "-", "--lang", "de", "--out", str(tmp_path / "report.md")]) == 0
    captured = capsys.readouterr()
    assert "Behauptung 1: Vitamin D3 did not reduce the risk of fractures in older adults." in captured.err
    assert "vorläufig: " in captured.err and "Urteil: " in captured.err
    assert "Urteil" in captured.out and "Konf." in captured.out and "Arbeiten" in captured.out
    assert "Nicht geprüft:" in captured.out and "We aimed to study coffee. (nennt ein Ziel)" in captured.out
    assert "s insgesamt)" in captured.out and "Verdict" not in captured.out
    assert (tmp_path / "report.md").read_text(encoding="utf-8").startswith("# claimtrace-Prüfung eines Textes")
