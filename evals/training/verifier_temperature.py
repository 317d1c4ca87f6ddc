"""Calibration of the stance verifier: temperature scaling (Guo et al., "On Calibration of Modern Neural Networks")
fitted on held-out training claims. Expected calibration error and the reliability diagram are in evals.reliability."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TEMPERATURES = np.round(np.arange(0.5, 4.001, 0.05), 2)


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def nll(logits: np.ndarray, labels: Sequence[int], temperature: float) -> float:
    p = softmax(logits, temperature)[np.arange(len(labels)), np.asarray(labels)]
    return float(-np.log(np.clip(p, 1e-12, 1.0)).mean())


def fit_temperature(logits: np.ndarray | Sequence[Sequence[float]], labels: Sequence[int]) -> float:
    """The temperature (grid 0.5 .. 4.0, step 0.05) that minimises the negative log-likelihood of ``labels``."""
    z = np.asarray(logits, dtype=float)
    return float(min(TEMPERATURES, key=lambda t: nll(z, labels, float(t))))
