"""The NLI trial reads only shippable sources, keeps the scientific rows, and trains its head in the verifier's
label order, so the head can be kept when SciFact training starts from it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from evals.training.nli_pretrain import NEVER_TRAIN, NOT_SHIPPABLE, read_rows, subset, target
from tools.models.verifier_artifact import LABELS


def _rows() -> list[dict[str, str]]:
    rows = []
    for i in range(40):
        source = ["snli", "anli", "sick", "check_covid", "nli4ct2024", "evidence_inference2", "vitaminc_real"][i % 7]
        label = ["entailment", "neutral", "contradiction"][i % 3]
        rows.append({"premise": f"p{i}", "hypothesis": f"h{i}", "label": label, "source": source, "id": str(i)})
    return rows


def test_left_out_sources_are_never_read(tmp_path: Path) -> None:
    path = tmp_path / "mix.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in _rows())
    kept = {r["source"] for r in read_rows(path, NOT_SHIPPABLE + NEVER_TRAIN)}
    assert kept == {"snli", "evidence_inference2", "vitaminc_real"}


def test_subset_keeps_every_scientific_row_and_its_size() -> None:
    rows = [r for r in _rows() if r["source"] in {"snli", "evidence_inference2", "vitaminc_real"}]
    part = subset(rows, 12, seed=1)
    science = [r for r in rows if r["source"] == "evidence_inference2"]
    assert all(r in part for r in science)
    assert abs(len(part) - 12) <= 2
    assert subset(rows, 12, seed=1) == part  # seeded


def test_head_targets_follow_the_verifier_labels() -> None:
    rows = [{"label": "entailment"}, {"label": "contradiction"}, {"label": "neutral"}]
    assert [LABELS[i] for i in target(rows).tolist()] == ["supports", "contradicts", "nei"]


def test_direction_accuracy_reads_supports_against_contradicts_on_bearing_pairs_only() -> None:
    import numpy as np

    from evals.training.label_metrics import direction_accuracy

    logits = np.array([[2.0, 1.0, 5.0], [0.0, 1.0, 9.0], [1.0, 3.0, 0.0], [4.0, 0.0, 0.0]])
    # pair 1 (supports, nei argmax) reads the right way; pair 2 (contradicts) the right way; pair 3 the wrong way;
    # pair 4 is nei and does not count
    assert direction_accuracy(logits, [0, 1, 0, 2]) == round(2 / 3, 4)
    assert direction_accuracy(logits, [2, 2, 2, 2]) is None
