"""The judge's held-out replay read again by another verifier: the same claims and abstracts, the LLM's recorded
answers kept, and the verifier's readings taken from the verifier named: each abstract's strongest 1 - P(nei) over
all its sentences (each read as the run time places it, evals.training.data.doc_premise) and the direction of its
first shown sentence. judge_calibration then fits the gate on it (``--replay``), so that two verifiers are compared
as the gate's first reader on the same abstracts; rescore both, since the replay itself read only the sentences
retrieval made candidates.

    python -m evals.training.rescore_replay --verifier DIR --out FILE [--replay FILE] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evals.training.bearing_replay import DATA_DIR, REPLAY, read_replay
from evals.training.data import Doc, doc_premise, load_data


def rescore_row(row: dict[str, Any], verifier: Any, corpus: dict[int, Doc]) -> dict[str, Any]:
    """``row`` with its verifier readings from ``verifier``; the LLM's answers as recorded."""
    from agent.judge.sources import verifier_direction

    docs = []
    for doc in row["docs"]:
        abstract = corpus[int(doc["doc_id"])]
        results = verifier.predict([(row["text"], doc_premise(abstract, [i], placed=True))
                                    for i in range(len(abstract.sents))])  # fmt: skip
        first = results[doc["sentences"][0][0]]
        docs.append({**doc, "bearing": round(1.0 - min(r.p_nei for r in results), 5),
                     "verifier_p_claim": verifier_direction(first), "verifier_label": first.label})  # fmt: skip
    return {**row, "docs": docs}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--verifier", type=Path, required=True, help="a verifier artifact folder")
    p.add_argument("--replay", type=Path, default=REPLAY)
    p.add_argument("--data-dir", type=Path, default=DATA_DIR)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--limit", type=int, default=None, help="only the first N claims")
    args = p.parse_args(argv)
    from tools.models.verifier import Verifier

    corpus, _, _ = load_data(args.data_dir)
    verifier = Verifier(args.verifier)
    rows = read_replay(args.replay)[: args.limit]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as fh:
        for k, row in enumerate(rows, start=1):
            fh.write(json.dumps(rescore_row(row, verifier, corpus), ensure_ascii=False) + "\n")
            print(f"rescore: {k}/{len(rows)} claims", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
