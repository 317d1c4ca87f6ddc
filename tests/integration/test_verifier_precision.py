"""The verifier graphs on real SciFact dev pairs: the fp32 graph the run time uses reads every pair as the PyTorch
network does, and the int8 graph (VERIFIER_PRECISION=int8) keeps all but a stated share of its labels."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from evals.training.data import build_eval_pairs, load_data
from tests.conftest import scifact_or_skip
from tools.models.verifier import Verifier

# The share of dev pairs whose label int8 may change: measured 4.0 % on all 899 pairs (evals/results/onnx_quality.md).
MAX_INT8_CHANGES = 0.05


@pytest.fixture(scope="module")
def dev_pairs() -> list[tuple[str, str]]:
    corpus, _, dev = load_data(scifact_or_skip())
    pairs, _, _, _ = build_eval_pairs(dev, corpus, placed=True)
    return pairs[::3]  # 300 of the 899 pairs, a fixed sample


@pytest.fixture(scope="module")
def fp32_probs(dev_pairs: list[tuple[str, str]]) -> Any:
    return np.asarray(Verifier(precision="fp32").predict_proba(dev_pairs))


def test_int8_changes_few_dev_labels(dev_pairs: list[tuple[str, str]], fp32_probs: Any) -> None:
    int8 = np.asarray(Verifier(precision="int8").predict_proba(dev_pairs))
    changed = float((int8.argmax(axis=1) != fp32_probs.argmax(axis=1)).mean())
    assert changed <= MAX_INT8_CHANGES
    assert np.abs(int8 - fp32_probs).mean() < 0.03


def test_fp32_graph_reads_dev_pairs_as_torch(dev_pairs: list[tuple[str, str]], fp32_probs: Any) -> None:
    sample = dev_pairs[::5]
    torch_probs = np.asarray(Verifier(backend="torch").predict_proba(sample))
    assert np.abs(fp32_probs[::5] - torch_probs).max() < 1e-3
    assert np.array_equal(fp32_probs[::5].argmax(axis=1), torch_probs.argmax(axis=1))
