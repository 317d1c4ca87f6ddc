"""Every test module that imports PyTorch at its top is one tests/conftest.py leaves out where PyTorch is not
installed (`make unit` on Python 3.12 and 3.13, which have no CPU wheel of it here): a module missing from that list
stops such a run at collection."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import TORCH_MODULES

TESTS = Path(__file__).resolve().parents[1]
TOP_IMPORT = re.compile(r"^(import torch\b|from torch\b)", re.M)


def test_each_module_importing_torch_at_its_top_is_left_out_without_torch() -> None:
    importing = {p.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*.py") if TOP_IMPORT.search(p.read_text())}
    assert importing, "no test module imports torch: the pattern is wrong"
    assert importing - set(TORCH_MODULES) == set()
