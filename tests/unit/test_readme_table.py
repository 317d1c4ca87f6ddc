"""The README's "How good it is" table is the one `python -m evals.readme_table` writes from the result files: a
figure the files do not hold, or a file that changed, fails here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evals import readme_table
from evals.readme_table import END, README, ROWS, START, Row, key_path, main, table, with_table

REPO = Path(__file__).resolve().parents[2]


def copy_of_the_repo(root: Path) -> Path:
    """README.md and every file a row reads, under ``root`` as in the repository."""
    for rel in {README, *(row.file for row in ROWS)}:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, root / rel)
    return root


def test_the_readme_holds_the_table_the_files_give():
    text = (REPO / README).read_text(encoding="utf-8")
    between = text.split(START)[1].split(END)[0].strip()
    assert between == table(), "run python -m evals.readme_table"
    assert main(["--check"]) == 0


def test_every_row_reads_its_file_and_names_a_commit():
    for row in ROWS:
        cells = row.read(REPO)
        assert len(cells) == len(readme_table.HEADER)
        assert all(cells), row.file
        assert len(cells[3]) == 7 and int(cells[3], 16) >= 0, f"{row.file}: commit {cells[3]!r}"
        assert f"]({row.file})" in cells[2]


def test_a_changed_figure_fails_the_check(tmp_path: Path):
    root = copy_of_the_repo(tmp_path)
    assert main(["--check"], root=root) == 0
    path = root / ROWS[0].file
    data = json.loads(path.read_text(encoding="utf-8"))
    data["claims"]["right_of_settled"] = 0.5
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["--check"], root=root) == 1
    assert main([], root=root) == 0  # rewritten from the file
    assert "| 0.500 (" in (root / README).read_text(encoding="utf-8")
    assert main(["--check"], root=root) == 0


def test_a_figure_the_file_does_not_hold_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = copy_of_the_repo(tmp_path)
    missing = Row("a figure no file holds", ROWS[0].file, "{claims.no_such_figure}", "none", commit="run.git_commit")
    monkeypatch.setattr(readme_table, "ROWS", [*ROWS, missing])
    assert main(["--check"], root=root) == 2
    with pytest.raises(KeyError, match="claims.no_such_figure"):
        key_path({"claims": {}}, "claims.no_such_figure")


def test_the_table_goes_between_the_markers_only():
    readme = f"before\n{START}\nold table\n{END}\nafter\n"
    assert with_table(readme, "| new |") == f"before\n{START}\n\n| new |\n\n{END}\nafter\n"
    with pytest.raises(ValueError):
        with_table("no markers", "| new |")


def test_a_function_reads_what_a_key_path_cannot():
    row = Row("minutes", "x.json", readme_table.newcomer_minutes, "none")
    runs = {"runs": [{"rev": "abc", "chat_open_minutes": 5.0, "first_answer_minutes": 6.0},
                     {"rev": "HEAD", "chat_open_minutes": 1.5, "first_answer_minutes": 2.25}]}  # fmt: skip
    assert row.figure(runs) == "1.50 / 2.25"  # type: ignore[operator]
