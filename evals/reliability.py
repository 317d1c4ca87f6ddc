"""Expected calibration error and the reliability diagram, for any stated confidence: the verifier's stance
probabilities (evals.training.verifier_trials) and the verdict confidence (evals.scifact.verdict_confidence). It sits
at the top of evals/ because the harness, training and the studies all read it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def reliability(probs: np.ndarray | Sequence[Sequence[float]], labels: Sequence[int], bins: int = 10) -> dict[str, Any]:
    """Expected calibration error of the top-label confidence over ``bins`` equal-width bins, with the bins."""
    p = np.asarray(probs, dtype=float)
    return confidence_reliability(p.max(axis=1), p.argmax(axis=1) == np.asarray(labels), bins)


def confidence_reliability(
    confidence: np.ndarray | Sequence[float], right: np.ndarray | Sequence[bool], bins: int = 10
) -> dict[str, Any]:
    """Expected calibration error of stated confidences against whether each was right, with the bins."""
    conf, right = np.asarray(confidence, dtype=float), np.asarray(right, dtype=bool)
    edges = np.linspace(0.0, 1.0, bins + 1)
    rows, ece = [], 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = (conf > lo) & (conf <= hi) if lo > 0 else (conf >= lo) & (conf <= hi)
        n = int(inside.sum())
        if n:
            acc, mean_conf = float(right[inside].mean()), float(conf[inside].mean())
            ece += n / len(conf) * abs(acc - mean_conf)
            rows.append(
                {
                    "bin": [round(lo, 2), round(hi, 2)],
                    "n": n,
                    "accuracy": round(acc, 4),
                    "confidence": round(mean_conf, 4),
                }
            )
    return {"ece": round(ece, 4), "n": int(len(conf)), "bins": rows}


def plot_reliability(curves: dict[str, dict[str, Any]], path: Path, title: str) -> None:
    """Reliability diagram: accuracy against mean confidence per bin, one line per curve, the diagonal for
    reference. Raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfectly calibrated")
    for name, rel in curves.items():
        xs = [b["confidence"] for b in rel["bins"]]
        ys = [b["accuracy"] for b in rel["bins"]]
        ax.plot(xs, ys, marker="o", label=f"{name} (ECE {rel['ece']:.3f})")
    ax.set_xlabel("confidence (mean of the bin)")
    ax.set_ylabel("accuracy")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
