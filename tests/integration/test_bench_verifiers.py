"""The index benchmark times another verifier artifact beside the shipped one on the same SciFact dev pairs
(`python -m evals.bench.index --verifiers-only --verifier NAME=DIR`), and reports it in its Markdown table."""

from __future__ import annotations

import json
from pathlib import Path

from evals.bench.index import main
from tests.conftest import scifact_or_skip
from tools.models.verifier import ARTIFACT_DIR


def test_another_verifier_is_timed_beside_the_shipped_one(tmp_path: Path) -> None:
    main(["--verifiers-only", "--verifier", f"same={ARTIFACT_DIR}", "--pairs", "16",
          "--data-dir", str(scifact_or_skip()), "--out", str(tmp_path)])  # fmt: skip
    res = json.loads((tmp_path / "bench_index.json").read_text())
    assert "embedding" not in res  # --verifiers-only: nothing else is timed
    (row,) = res["other_verifiers"].values()
    assert row["n"] == 16 and row["pairs_per_s"] > 0 and row["shipped_pairs_per_s"] > 0
    assert abs(row["shipped_speedup"] / (row["shipped_pairs_per_s"] / row["pairs_per_s"]) - 1) < 0.05
    table = (tmp_path / "bench_index.md").read_text()
    assert "Cold start" not in table  # it was not timed
    assert f"| same (`{ARTIFACT_DIR}`) | {row['shipped_pairs_per_s']} | {row['pairs_per_s']} |" in table
