"""The judge's replay on held-out SciFact train claims: what every part of the two-part judge reads of each retrieved
abstract, recorded once so that the gate and the direction can be fitted and compared without asking again.

    python -m evals.training.bearing_replay [--limit N]

Per held-out claim (evals/training/data.split_heldout, 15 %, seed 13: claims the verifier never trained on), the
product's retrieval (the claim and its negation) and evidence candidates; the verifier reads every candidate
sentence, as the assess node does; for each of the top abstracts, the sentences the product would show
(agent.judge.sources.shown), the verifier's strongest 1 - P(nei) and its own direction, and the LLM's answers to both
of its questions (agent.judge.direction: does the evidence bear, P(Yes); which of the claim and its opposite it
supports, both orders). One JSON row per claim in ``evals/results/bearing_gate/replay_heldout.jsonl``, appended as each
claim is done (an interrupted run resumes). """

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.training.data import Claim, load_data, split_heldout

REPO = Path(__file__).resolve().parents[2]
DATA_DIR = REPO.parent / "shared" / "data" / "scifact"
REPLAY = REPO / "evals" / "results" / "bearing_gate" / "replay_heldout.jsonl"


def heldout_claims(data_dir: Path = DATA_DIR) -> list[Claim]:
    _, train, _ = load_data(data_dir)
    return split_heldout(train, 0.15, 13)[1]


def read_replay(path: Path = REPLAY) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def replay_claim(claim: Claim, deps: Any) -> dict[str, Any]:
    """One claim's row: every top abstract with what the verifier and the LLM read of it."""
    from agent import stages
    from agent.judge.direction import bears, choose, evidence_text, opposite_of
    from agent.judge.sources import premise, shown, verifier_direction

    t0 = time.perf_counter()
    retrieved = stages.retrieval(claim.text, deps)
    candidates = stages.evidence(retrieved, deps).get("evidence", [])
    results = deps.verifier.predict([(claim.text, premise(ev)) for ev in candidates])
    read: dict[str, list[Any]] = defaultdict(list)
    for ev, res in zip(candidates, results, strict=True):
        read[ev.doc_id].append((ev, res))
    opposite = retrieved.get("opposite") or opposite_of(None, claim.text)[0]
    gold = {str(d): sets[0][1] for d, sets in claim.evidence.items()}
    docs = []
    for rank, (doc_id, pairs) in enumerate(read.items()):
        kept = shown(pairs, deps.settings.judge.sentences_per_doc)
        sentences = [ev for ev, _ in kept]
        text = evidence_text(deps, doc_id, sentences)
        bearing = bears(deps.llm, text, claim.text)
        choice = choose(deps.llm, text, claim.text, opposite)
        docs.append(
            {
                "doc_id": doc_id,
                "rank": rank,
                "title": sentences[0].title,
                "sentences": [[ev.sentence_index, ev.sentence] for ev in sentences],
                "bearing": round(1.0 - min(res.p_nei for _, res in pairs), 5),
                "verifier_p_claim": verifier_direction(kept[0][1]),
                "verifier_label": kept[0][1].label,
                "llm_p_bears": bearing.p_bears,
                "llm_p_claim": choice.p_claim,
                "llm_orders": list(choice.orders),
                "gold": gold.get(doc_id),  # 0 supports, 1 contradicts, None: not cited as evidence
            }
        )
    return {
        "claim": claim.id,
        "text": claim.text,
        "opposite": opposite,
        "gold_docs": len(gold),
        "seconds": round(time.perf_counter() - t0, 2),
        "docs": docs,
    }


def replay(claims: Sequence[Claim], path: Path = REPLAY) -> list[dict[str, Any]]:
    """The rows of ``claims``, asking only for those ``path`` does not hold yet."""
    done = {r["claim"]: r for r in read_replay(path)}
    todo = [c for c in claims if c.id not in done]
    if todo:
        from agent.service import load_deps
        from agent.settings.app import get_settings

        deps = load_deps(get_settings().with_values(live={"sources": "local"}))
        path.parent.mkdir(parents=True, exist_ok=True)
        for k, claim in enumerate(todo, start=1):
            row = replay_claim(claim, deps)
            with path.open("a") as fh:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            done[claim.id] = row
            print(f"replay: {k}/{len(todo)} claims ({row['seconds']:.1f} s)", flush=True)
    return [done[c.id] for c in claims if c.id in done]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=DATA_DIR)
    p.add_argument("--out", type=Path, default=REPLAY)
    p.add_argument("--limit", type=int, default=None, help="only the first N held-out claims")
    args = p.parse_args(argv)
    claims = heldout_claims(args.data_dir)[: args.limit]
    rows = replay(claims, args.out)
    print(f"{len(rows)} claims, {sum(len(r['docs']) for r in rows)} abstracts in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
