"""The verifier's label metrics (per-class precision, recall and F1, macro-F1, accuracy, the confusion matrix) and
its reading of direction, with numpy alone: the studies that score a verifier import them without PyTorch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tools.models.verifier import LABELS


def metrics(y_true: Sequence[int], y_pred: Sequence[int]) -> dict[str, Any]:
    cm = np.zeros((3, 3), dtype=int)
    for t, p in zip(y_true, y_pred, strict=True):
        cm[t, p] += 1
    per: dict[str, dict[str, float]] = {}
    for k, name in enumerate(LABELS):
        tp = cm[k, k]
        prec = tp / cm[:, k].sum() if cm[:, k].sum() else 0.0
        rec = tp / cm[k].sum() if cm[k].sum() else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per[name] = {
            "precision": round(float(prec), 4),
            "recall": round(float(rec), 4),
            "f1": round(float(f1), 4),
            "support": int(cm[k].sum()),
        }
    return {
        "n": len(y_true),
        "macro_f1": round(float(np.mean([per[n]["f1"] for n in LABELS])), 4),
        "accuracy": round(float(np.trace(cm) / max(1, cm.sum())), 4),
        "per_class": per,
        "confusion_matrix": {"rows_true_cols_pred": list(LABELS), "matrix": cm.tolist()},
    }


def direction_accuracy(logits: np.ndarray, labels: list[int]) -> float | None:
    """On the pairs that bear on the claim (gold supports or contradicts), the share whose supports logit beats its
    contradicts logit the right way: the verifier's reading of direction, whatever it says of bearing."""
    bearing = [k for k, y in enumerate(labels) if y in (0, 1)]
    if not bearing:
        return None
    right = sum((logits[k, 0] > logits[k, 1]) == (labels[k] == 0) for k in bearing)
    return round(right / len(bearing), 4)
