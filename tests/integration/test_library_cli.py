"""`claimtrace add` and `ask --sources library` as a user runs them (subprocess), on a temporary DATA_DIR with the
tiny corpus indexed: a full-text passage is cited with its page, a bad file is one line naming it, adding twice
adds nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.integration.test_cli import run
from tests.library_files import FINDING, PAPER_DOI, indexed_env, malformed_pdf, paper_pdf, reference_files

CLAIM = "Vitamin D supplementation prevents hip fractures."


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return indexed_env(tmp_path_factory.mktemp("data"))


def test_add_then_ask_the_library(env: dict[str, str], tmp_path: Path):
    folder = tmp_path / "papers"
    folder.mkdir()
    paper = paper_pdf(folder)
    broken = malformed_pdf(folder)
    reference_files(folder)
    proc = run(["add", str(folder)], env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("3 document(s) added to your library (1 full text(s), 2 abstract(s)); 0 duplicate")
    lines = proc.stderr.strip().splitlines()
    assert f"claimtrace add: skipped {broken.resolve()}: it is not a readable PDF" in lines[0]
    assert lines[1:] == [
        "claimtrace add: skipped refs.bib: noabstract2018: it has no abstract and no readable PDF attached",
        "claimtrace add: skipped refs.ris: An entry with no abstract: it has no abstract and no readable PDF attached",
    ]
    assert "Traceback" not in proc.stderr

    ask = run(["ask", CLAIM, "--sources", "library", "--json"], env)  # a new process: the library persisted
    assert ask.returncode == 0, ask.stderr
    # no library's BM25 build logged on the way: the only line is where the check is kept
    assert [line for line in ask.stderr.splitlines() if not line.startswith("Kept as thread ")] == []
    sources = json.loads(ask.stdout)["sources"]
    assert sources and all(s["doc_id"].startswith("lib:") for s in sources)
    finding = next(s for s in sources if s["sentence"] == FINDING)
    assert finding["doc_id"] == f"lib:{PAPER_DOI}" and finding["page"] == 2
    readable = run(["ask", CLAIM, "--sources", "library"], env)
    assert readable.returncode == 0
    # one line for the paper, naming every page its evidence sentences are on (the finding's page 2 among them)
    heading = r"Vitamin D and hip fractures: a trial \(2019\), p\. ([\d, ]+) \[randomised trial\] — "
    pages = re.search(heading, readable.stdout)
    assert pages and "2" in pages.group(1).split(", "), readable.stdout

    again = run(["add", str(paper)], env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "0 document(s) added to your library; 1 duplicate(s)"

    local = run(["ask", CLAIM, "--sources", "local", "--json"], env)
    assert local.returncode == 0, local.stderr
    assert not any(s["doc_id"].startswith("lib:") for s in json.loads(local.stdout)["sources"])


def test_nothing_usable_is_a_non_zero_exit_naming_each_file(env: dict[str, str], tmp_path: Path):
    broken = malformed_pdf(tmp_path)
    proc = run(["add", str(broken), str(tmp_path / "missing.pdf")], env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"claimtrace add: skipped {tmp_path / 'missing.pdf'}: not found",
        f"claimtrace add: skipped {broken.resolve()}: it is not a readable PDF (PdfStreamError: Stream has ended "
        "unexpectedly)",
    ]
    assert proc.stdout.startswith("0 document(s) added to your library; 0 duplicate(s); 2 skipped: ")


def test_an_empty_folder_and_a_missing_index_are_one_line(env: dict[str, str], tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(["add", str(empty)], env)
    assert proc.returncode == 2 and proc.stderr.strip() == f"claimtrace: no .pdf, .bib, .ris file in {empty}"
    proc = run(["add", str(paper_pdf(tmp_path))], {**env, "DATA_DIR": str(tmp_path / "no-index")})
    assert proc.returncode == 3 and proc.stdout == ""
    assert proc.stderr.strip().startswith("claimtrace: no index at ") and "run `claimtrace index` first" in proc.stderr
