"""Corpus loaders: SciFact and BEIR formats, malformed lines reported with their line numbers, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tools.corpus import CorpusError, LoadReport, iter_corpus, load_corpus, resolve_corpus_path


def test_scifact_format():
    docs, report = load_corpus(FIXTURES / "tiny_corpus.jsonl")
    assert len(docs) == 8 and not report.problems
    assert docs[0].doc_id == "101" and docs[0].sentences[3].startswith("MMR vaccination was not associated")


def test_beir_format_is_sentence_split():
    docs, _ = load_corpus(FIXTURES / "tiny_beir.jsonl")
    assert [d.doc_id for d in docs] == ["101", "102", "103"]
    assert len(docs[0].sentences) == 5
    assert (
        docs[0].sentences[3]
        == "MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93)."
    )


def test_malformed_lines_are_skipped_with_line_numbers():
    report = LoadReport(FIXTURES / "malformed_corpus.jsonl")
    docs = list(iter_corpus(FIXTURES / "malformed_corpus.jsonl", report))
    assert [d.doc_id for d in docs] == ["101", "102"]
    lines = [p.split(":")[1] for p in report.problems]
    assert lines == ["2", "4", "5", "7", "8"]
    assert "duplicate doc_id 102" in report.problems[3]


def test_binary_garbage_line(tmp_path: Path):
    path = tmp_path / "c.jsonl"
    path.write_bytes((FIXTURES / "tiny_corpus.jsonl").read_bytes().splitlines(keepends=True)[0] + b"\xff\xfe\x00\n")
    docs, report = load_corpus(path)
    assert len(docs) == 1 and "UnicodeDecodeError" in report.problems[0]


def test_empty_corpus_is_an_error(tmp_path: Path):
    path = tmp_path / "c.jsonl"
    path.write_text("not json\n")
    with pytest.raises(CorpusError):
        load_corpus(path)


def test_resolution_prefers_configured_then_mirror(tmp_path: Path):
    assert resolve_corpus_path(FIXTURES / "tiny_corpus.jsonl", tmp_path, tmp_path, "http://127.0.0.1:9/x") == (
        FIXTURES / "tiny_corpus.jsonl"
    )
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "corpus.jsonl").write_text("{}")
    assert resolve_corpus_path(None, mirror, tmp_path, "http://127.0.0.1:9/x") == mirror / "corpus.jsonl"
    with pytest.raises(CorpusError, match="not found"):
        resolve_corpus_path(tmp_path / "nowhere", mirror, tmp_path, "http://127.0.0.1:9/x")


def test_download_failure_is_a_clear_error(tmp_path: Path):
    # port 9 on loopback: nothing listens, so the download fails at once without leaving the machine
    with pytest.raises(CorpusError, match="set CORPUS_PATH"):
        resolve_corpus_path(None, tmp_path / "no-mirror", tmp_path, "http://127.0.0.1:9/data.tar.gz")
