"""Every kind of bad input to `claimtrace ask`, `index` and `ui`, and every damaged index, through the command's own
entry point (`ui.terminal.cli.main`, in this process: the console script minus the interpreter's start) with the real
index of the tiny corpus, the real verifier and the scripted LLM. Each ends in one clear line and an exit code, or in a
check of what the user meant; nothing the user had is lost."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chromadb.api.client import SharedSystemClient

from agent.settings.app import get_settings
from tests.conftest import BEARS, CHOOSE_NOT, CONTEXT_RULE, FIXTURES, STOP_SEARCHING
from ui.terminal.cli import main

CLAIM = "The MMR vaccine causes autism."
SCRIPT = [
    BEARS, CHOOSE_NOT, CONTEXT_RULE,
    {"when": "<evidence>", "reply": "Cohort studies found no link between MMR vaccination and autism [1]."},
    STOP_SEARCHING,
]
TINY = FIXTURES / "tiny_corpus.jsonl"
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DATA_DIR with the index of the tiny corpus, built by `claimtrace index` itself."""
    from tools.index.build import build_index

    data = tmp_path_factory.mktemp("cli_home")
    build_index(TINY, data / "index", progress=False)
    (data / "script.json").write_text(json.dumps(SCRIPT))
    return data


@pytest.fixture
def run(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Run]:
    """`run(args, stdin=b"...", env={...}, data_dir=...)` -> (exit code, stdout, stderr)."""
    for key in list(os.environ):
        if key.startswith(("LLM_", "OPENAI_", "CHROMA_", "CORPUS_", "CHECKPOINT_", "PRESET")):
            monkeypatch.delenv(key)

    def invoke(
        args: list[str], stdin: bytes = b"", env: dict[str, str] | None = None, data_dir: Path | None = None
    ) -> tuple[int, str, str]:
        values = {
            "DATA_DIR": str(data_dir or home),
            "LLM_PROVIDER": "scripted",
            "LLM_SCRIPT": str(home / "script.json"),
        }
        for key, value in {**values, **(env or {})}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        get_settings.cache_clear()
        capsys.readouterr()
        code = main(args)
        out, err = capsys.readouterr()
        return code, out, err

    yield invoke
    get_settings.cache_clear()


def one_line(result: tuple[int, str, str], code: int, text: str) -> None:
    got, out, err = result
    lines = err.strip().splitlines()
    assert got == code and len(lines) == 1, err
    assert lines[0].startswith("claimtrace: ") and text in lines[0], lines[0]
    assert "Traceback" not in err and out == ""


REFUSED = [
    pytest.param(["ask", ""], b"", "the claim is empty", id="empty"),
    pytest.param(["ask", " \n\t\u3000 "], b"", "the claim is empty", id="whitespace"),
    pytest.param(["ask", "-"], b"", "the claim is empty", id="empty_stdin"),
    pytest.param(["ask", "x" * 2001], b"", "the claim is 2001 characters long; the limit is 2000", id="chars_2001"),
    pytest.param(["ask", "-"], b"Vitamin D reduces fractures. " * 34_500, "1000500 characters long", id="paste_1mb"),
    pytest.param(["ask", "-"], b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not valid UTF-8", id="binary_png"),
    pytest.param(["ask", "-"], b"vaccines \x00 autism", "binary control characters", id="nul"),
    pytest.param(["ask", "-"], b"vaccines \x1b[2J\x07 autism", "binary control characters", id="terminal_escapes"),
    pytest.param(["ask", "-"], b"\xff\xfe\xfa claim", "not valid UTF-8", id="invalid_utf8_stdin"),
    # a non-UTF-8 byte in an argument reaches Python as a lone surrogate (surrogateescape)
    pytest.param(["ask", "vaccines \udcff autism"], b"", "not valid UTF-8", id="invalid_utf8_argument"),
    pytest.param(["ask", "\u200b\u200c\u200d\ufeff\u2060"], b"", "the claim is empty", id="zero_width_only"),
    pytest.param(["ask", "🧪💉🤔 🔬"], b"", "the claim has no words", id="emoji_only"),
    pytest.param(["ask", "?!... 42"], b"", "the claim has no words", id="punctuation_and_digits"),
    pytest.param(["ask", "https://www.nature.com/articles/s41586-020-2012-7"], b"", "a link alone", id="url_only"),
    pytest.param(["ask", "10.1056/NEJMoa2034577"], b"", "a DOI or PubMed id names a paper", id="doi_only"),
    pytest.param(["ask", "doi:10.1016/S0140-6736(20)30183-5."], b"", "a DOI or PubMed id", id="doi_prefixed"),
    pytest.param(["ask", "PMID: 31234567"], b"", "a DOI or PubMed id names a paper", id="pmid_only"),
    pytest.param(
        ["ask", CLAIM, "--sources", "frobnicate"], b"", "--sources: unknown source(s) frobnicate", id="unknown_sources"
    ),
    pytest.param(["ask", CLAIM, "--sources", " , "], b"", "--sources: no source given", id="empty_sources"),
    pytest.param(["ask", CLAIM, "--frobnicate"], b"", "unrecognized arguments: --frobnicate", id="unknown_option"),
    pytest.param(["frobnicate"], b"", "invalid choice", id="unknown_command"),
    pytest.param(["index", "--limit", "-3"], b"", "argument --limit: expected at least 1, not -3", id="limit_negative"),
    pytest.param(["index", "--limit", "ten"], b"", "argument --limit: expected a whole number", id="limit_text"),
    pytest.param(["ui", "--port", "70000"], b"", "--port must be between 1 and 65535", id="port_out_of_range"),
]


@pytest.mark.parametrize(("args", "stdin", "message"), REFUSED)
def test_refused_with_one_clear_line(run: Run, args: list[str], stdin: bytes, message: str):
    one_line(run(args, stdin=stdin), 2, message)


def test_refusals_leave_the_index_as_it_was(run: Run, home: Path):
    before = (home / "index" / "manifest.json").read_text()
    for args in (["index", "--limit", "-3"], ["index", "--limit", "0"], ["ask", ""]):
        assert run(args)[0] == 2
    assert (home / "index" / "manifest.json").read_text() == before


@pytest.mark.parametrize(
    ("command", "env", "message"),
    [
        pytest.param("ask", {"TOP_DOCS": "many"}, "bad setting: TOP_DOCS", id="ask_not_a_number"),
        pytest.param(
            "ask",
            {"LLM_TIMEOUT": "-1"},
            "bad setting: LLM_TIMEOUT: Input should be greater than 0",
            id="ask_out_of_range",
        ),
        pytest.param("ask", {"SOURCES": "frobnicate"}, "bad setting: SOURCES", id="ask_unknown_source"),
        pytest.param("ask", {"DESIGN_WEIGHTS": '{"dogs": 0.5}'}, "bad setting: DESIGN_WEIGHTS: Value error, unknown "
                     "study design(s) ['dogs']", id="ask_unknown_design"),
        pytest.param("index", {"PRESET": "frobnicate"}, "unknown preset 'frobnicate'", id="index_unknown_preset"),
        pytest.param("ui", {"MODEL_BACKEND": "gpu"}, "bad setting: MODEL_BACKEND", id="ui_unknown_choice"),
    ],
)
def test_bad_setting_value_is_named(run: Run, command: str, env: dict[str, str], message: str):
    args = {"ask": ["ask", CLAIM], "index": ["index", "--corpus", str(TINY)], "ui": ["ui"]}[command]
    one_line(run(args, env=env), 2, message)


def checked(run: Run, claim: str) -> dict[str, Any]:
    code, out, err = run(["ask", "-", "--json"], stdin=claim.encode())
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    assert result["verdict"]["label"] and result["answer"].startswith(result["summary"]) and result["summary"]
    return result


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        pytest.param("The MMR\u200b vaccine causes\u200d autism.\ufeff", CLAIM, id="zero_width_inside"),
        pytest.param("\u202eThe MMR vaccine causes autism.\u202c", CLAIM, id="direction_override"),
        pytest.param("The MMR vaccine\r\n causes\tautism.  ", CLAIM, id="line_breaks_and_tabs"),
    ],
)
def test_invisible_characters_are_dropped(run: Run, typed: str, kept: str):
    assert checked(run, typed)["claim"] == kept


def test_right_to_left_claim_keeps_its_marks(run: Run):
    claim = (
        "\u05d7\u05d9\u05e1\u05d5\u05df MMR \u05d2\u05d5\u05e8\u05dd \u05dc\u05d0\u05d5\u05d8\u05d9\u05d6\u05dd\u200f."
    )
    result = checked(run, claim)
    assert result["claim"] == claim
    assert any("the corpus is in English" in note for note in result["notes"])


def test_question_is_checked_with_a_note(run: Run):
    result = checked(run, "Does the MMR vaccine cause autism?")
    assert result["claim"] == "Does the MMR vaccine cause autism?"
    assert any("reads as a question" in note for note in result["notes"])


def test_sql_and_shell_metacharacters_are_searched_as_text(run: Run, tmp_path: Path):
    marker = tmp_path / "ran"
    claim = f"The MMR vaccine causes autism'; DROP TABLE threads; -- $(touch {marker}) `touch {marker}` | rm -rf ~"
    assert checked(run, claim)["claim"] == claim
    assert not marker.exists()


def test_markdown_and_html_are_printed_as_typed(run: Run):
    claim = "**The MMR** <b>vaccine</b> [causes](javascript:alert(1)) autism <script>alert(1)</script>"
    code, out, err = run(["ask", claim])
    assert code == 0, err
    assert f"Claim: {claim}\n" in out


def test_exactly_the_limit_is_accepted(run: Run):
    claim = "The MMR vaccine causes autism " + ("and autism " * 200)[: 2000 - 31] + "."
    assert len(checked(run, claim)["claim"]) == 2000


# --- index: the corpus and the index directory -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        pytest.param("", "no usable abstracts", id="empty_corpus"),
        pytest.param(
            '{"doc_id": 1, "abstract": ["unterminated\n[1, 2]\nnot json\n',
            "no usable abstracts",
            id="only_broken_lines",
        ),
    ],
)
def test_unusable_corpus_keeps_the_index(run: Run, home: Path, tmp_path: Path, lines: str, message: str):
    data = tmp_path / "data"
    shutil.copytree(home / "index", data / "index")
    before = (data / "index" / "manifest.json").read_text()
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(lines)
    one_line(run(["index", "--corpus", str(corpus)], data_dir=data), 3, message)
    assert (data / "index" / "manifest.json").read_text() == before
    assert run(["ask", CLAIM, "--json"], data_dir=data)[0] == 0  # the index still answers


def test_missing_corpus_is_named(run: Run, tmp_path: Path):
    one_line(run(["index", "--corpus", str(tmp_path / "nowhere.jsonl")], data_dir=tmp_path), 3, "corpus not found")


def damage_manifest(index: Path) -> None:
    (index / "manifest.json").write_text('{"fingerprint": ')


def damage_corpus_copy(index: Path) -> None:
    text = (index / "corpus.jsonl").read_text()
    (index / "corpus.jsonl").write_text(text[: len(text) // 2])


def damage_bm25(index: Path) -> None:
    for path in (index / "bm25").iterdir():
        path.write_bytes(b"\x00garbage")


def damage_chroma(index: Path) -> None:
    (index / "chroma" / "chroma.sqlite3").write_bytes(b"this is no database" * 100)


DAMAGE = [
    pytest.param(damage_manifest, "manifest.json cannot be read", id="manifest"),
    pytest.param(damage_corpus_copy, "corpus.jsonl cannot be read", id="corpus_copy"),
    pytest.param(damage_bm25, "bm25 cannot be read", id="bm25"),
    pytest.param(damage_chroma, "chroma cannot be read", id="chroma"),
]


@pytest.mark.parametrize(("damage", "what"), DAMAGE)
def test_damaged_index_is_named_and_rebuilt(
    run: Run, home: Path, tmp_path: Path, damage: Callable[[Path], None], what: str
):
    data = tmp_path / "data"
    index = data / "index"
    shutil.copytree(home / "index", index)
    live = '{"doc_id": "doi:10.1/kept", "title": "Fetched earlier", "sentences": ["A kept abstract."]}\n'
    (index / "live_docs.jsonl").write_text(live)
    damage(index)
    chroma_bytes = (index / "chroma" / "chroma.sqlite3").read_bytes()
    result = run(["ask", CLAIM], data_dir=data)
    one_line(result, 3, f"is damaged ({what}")
    assert "rebuild it with `claimtrace index --force`" in result[2]

    SharedSystemClient.clear_system_cache()  # each command runs in a process of its own; here they share one
    code, out, err = run(["index", "--force", "--corpus", str(TINY)], data_dir=data)  # what the message says
    assert code == 0 and "index built" in out, err
    assert run(["ask", CLAIM, "--json"], data_dir=data)[0] == 0
    assert (index / "live_docs.jsonl").read_text() == live  # fetched abstracts outlive the rebuild
    if damage is damage_chroma:  # a store SQLite cannot read is moved aside with a timestamp, never deleted
        (aside,) = index.glob("chroma.damaged-*")
        assert (aside / "chroma.sqlite3").read_bytes() == chroma_bytes
        assert "could not be read" in err and str(aside) in err


def test_index_sees_a_damaged_chroma_store_without_force(run: Run, home: Path, tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(home / "index", data / "index")
    damage_chroma(data / "index")
    code, out, err = run(["index", "--corpus", str(TINY)], data_dir=data)
    assert code == 0 and "index built" in out and "is damaged (chroma/chroma.sqlite3 is not a SQLite database)" in err
    assert len(list((data / "index").glob("chroma.damaged-*"))) == 1
