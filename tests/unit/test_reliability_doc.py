"""docs/reliability.md cannot drift from the suite: every table row names at least one test as `path::name` or
`path::name[case]`, the file exists, it defines a test function of that name, and a named case is an explicit
parametrisation id of that function's file."""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reliability.md"
COLUMNS = ["input or fault", "what the user sees", "what is kept", "test (path::name)"]
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)(?:\[([^\]`]+)\])?`")


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows() -> list[tuple[int, list[str]]]:
    """(line number, cells) of every body row of every table, after checking each table's header."""
    rows: list[tuple[int, list[str]]] = []
    lines = DOC.read_text(encoding="utf-8").splitlines()
    for no, line in enumerate(lines, start=1):
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        if line.startswith("| input or fault"):
            assert cells(line) == COLUMNS, f"line {no}: the columns are {COLUMNS}"
            continue
        rows.append((no, cells(line)))
    return rows


@lru_cache
def definitions(path: str) -> tuple[frozenset[str], frozenset[str]]:
    """The test functions a file defines, and every string constant in it (where explicit case ids live)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return frozenset(functions), frozenset(strings)


def check_row(row: list[str]) -> list[str]:
    """What is wrong with one row (empty when nothing is)."""
    if len(row) != len(COLUMNS) or not all(row[:3]):
        return [f"expected {len(COLUMNS)} filled cells, got {row}"]
    references = REFERENCE.findall(row[3])
    if not references:
        return [f"no `path::name` test reference in {row[3]!r}"]
    problems = []
    for path, name, case in references:
        if not (ROOT / path).is_file():
            problems.append(f"{path} does not exist")
            continue
        functions, strings = definitions(path)
        if name not in functions:
            problems.append(f"{path} defines no {name}")
        elif case and case not in strings:
            problems.append(f"{path}::{name}: no parametrised case with the id {case!r}")
    return problems


def test_the_doc_has_its_sections_and_enough_bad_inputs():
    text = DOC.read_text(encoding="utf-8")
    for section in ("## Bad input", "## Faults", "## Crash safety", "## Security"):
        assert f"\n{section}\n" in text, section
    bad_input = text.split("\n## Bad input\n")[1].split("\n## ")[0]
    assert (
        sum(line.startswith("| ") and not line.startswith("| input or fault") for line in bad_input.splitlines()) >= 30
    )


@pytest.mark.parametrize(("line", "row"), [pytest.param(no, row, id=f"line{no}") for no, row in table_rows()])
def test_every_row_names_tests_that_exist(line: int, row: list[str]):
    assert not check_row(row), f"docs/reliability.md line {line}: {check_row(row)}"


def test_a_drifted_reference_is_caught():
    here = "tests/unit/test_reliability_doc.py"
    good = ["an input", "a message", "everything", f"`{here}::test_a_drifted_reference_is_caught`"]
    assert check_row(good) == []
    assert check_row([*good[:3], f"`{here}::test_renamed_away`"]) == [f"{here} defines no test_renamed_away"]
    other = "tests/unit/test_claim_input.py::test_accepted"
    assert check_row([*good[:3], f"`{other}[no_such_case]`"]) == [
        f"{other}: no parametrised case with the id 'no_such_case'"
    ]
    assert check_row([*good[:3], "`tests/unit/test_gone.py::test_x`"]) == ["tests/unit/test_gone.py does not exist"]
    assert check_row([*good[:3], "a test somewhere"])
