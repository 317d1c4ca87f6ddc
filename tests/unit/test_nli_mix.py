"""The NLI mix as extra verifier training data (evals/training/data.py): Evidence Inference apart from the rest, and
none of the sources whose licence (or held-out status) keeps them out of shipped weights."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from evals.training.data import NOT_FOR_WEIGHTS, load_nli_mix


def test_the_nli_mix_leaves_out_sources_shipped_weights_may_not_learn_from(tmp_path: Path) -> None:
    rows = [
        {"premise": "No significant difference in mortality.", "hypothesis": "Drug X lowers mortality.",
         "label": "contradiction", "source": "evidence_inference2"},
        {"premise": "A man sleeps.", "hypothesis": "A person sleeps.", "label": "entailment", "source": "snli"},
        {"premise": "A cat sits.", "hypothesis": "A dog runs.", "label": "neutral", "source": "taxinli_mnli"},
        *({"premise": "p", "hypothesis": "h", "label": "entailment", "source": s} for s in sorted(NOT_FOR_WEIGHTS)),
    ]  # fmt: skip
    path = tmp_path / "mix.jsonl.gz"
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    ei, rest = load_nli_mix(path)
    assert [(e.hyp, e.variants, e.label) for e in ei] == [
        ("Drug X lowers mortality.", ["No significant difference in mortality."], 1)
    ]
    assert sorted((e.hyp, e.label) for e in rest) == [("A dog runs.", 2), ("A person sleeps.", 0)]
    assert {"anli", "sick", "check_covid"} <= NOT_FOR_WEIGHTS
