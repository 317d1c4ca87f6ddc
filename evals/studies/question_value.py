"""What do the LLM's search questions add?

SciFact retrieval and Label-Only F1 with the queries a full run's LLM wrote
(claim + questions + its opposite claim) against the queries that need no LLM (the claim and its rule-made
negation, which the provisional verdict uses) and the claim alone.

Retrieval, reranking and the judgement (select_evidence -> verdict) run as the pipeline runs them; only the query
list differs, so the difference is what the decompose call buys. Its price is the decompose seconds the full run
recorded per claim.

    python -m evals.studies.question_value --replay evals/results/scifact_dev_full.predictions.jsonl.gz
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.experiments import experiment_header, report_heading, write_experiment
from evals.scifact.data import RESULTS_DIR, load_claims
from evals.scifact.metrics import retrieval_metrics
from evals.scifact.records import make_record, replay_records, run_config
from evals.scifact.scifact_metrics import abstract_metrics

CONDITIONS = ("llm_questions", "negation_and_llm_questions", "claim_and_negation", "claim_only")


def condition_queries(condition: str, claim: str, recorded: Sequence[str]) -> list[Any]:
    """The query list of one condition: recorded LLM queries (claim first, opposite last), those after the claim
    and its rule-made negation (what LLM_QUESTIONS=true searches), the claim and its negation (the default), or the
    claim alone."""
    from agent.state import Query
    from tools.text.opposite import negation

    if condition == "llm_questions":
        kinds = ["claim"] + ["question"] * (len(recorded) - 2) + ["opposite"]
        return [Query(text=t, kind=k) for t, k in zip(recorded, kinds, strict=True)]
    first = [Query(text=claim, kind="claim"), Query(text=negation(claim), kind="opposite")]
    if condition == "negation_and_llm_questions":
        more = condition_queries("llm_questions", claim, recorded)[1:]
        return first + [q for q in more if q.text not in {f.text for f in first}]
    if condition == "claim_and_negation":
        return first
    return [Query(text=claim, kind="claim")]


def main(argv: list[str] | None = None) -> int:
    from agent import stages
    from agent.llm.scripted import ScriptedChatModel
    from agent.settings.app import get_settings
    from agent.state import Deps
    from evals.scifact.data import evidence_qrels
    from evals.scifact.scifact_metrics import DocPrediction
    from tools.index.local import CorpusIndex
    from tools.models.verifier import get_verifier

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", type=Path, required=True, help="predictions JSONL of a full dev run")
    p.add_argument("--limit", type=int, help="only the first N claims")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--name", default="question_value")
    p.add_argument("--conditions", nargs="+", choices=CONDITIONS, default=list(CONDITIONS))
    args = p.parse_args(argv)

    settings = get_settings().with_values(live={"sources": "local"})
    claims = load_claims(settings.stores.corpus_mirror, "dev", args.limit)
    records = {int(r["id"]): r for r in replay_records(args.replay)}
    claims = [c for c in claims if int(c["id"]) in records]
    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    deps = Deps(settings=settings, llm=ScriptedChatModel(rules=[]), index=index, verifier=get_verifier())
    config = run_config(settings, index, retrieval_only=False, verifier=deps.verifier)
    # the first embedder call loads the model: not part of any claim's time
    stages.retrieval("warm-up", deps, condition_queries("claim_only", "warm-up", []))
    res = experiment_header("evals.studies.question_value", argv, "dev", claims)
    res["replay"] = str(args.replay)
    decompose_s = [float(records[int(c["id"])]["result"]["timings"].get("decompose", 0)) for c in claims]
    res["decompose_seconds"] = {"median": statistics.median(decompose_s), "mean": statistics.mean(decompose_s)}
    res["conditions"] = {}
    qrels = evidence_qrels(claims)
    for condition in args.conditions:
        recs, seconds = [], []
        for c in claims:
            claim = " ".join(c["claim"].split())
            queries = condition_queries(condition, claim, records[int(c["id"])]["result"]["queries"])
            t0 = time.perf_counter()
            state = stages.judgement(stages.retrieval(claim, deps, queries), deps)
            seconds.append(time.perf_counter() - t0)
            recs.append(make_record(int(c["id"]), state, seconds[-1], config))
        preds = {
            int(r["id"]): {
                d: DocPrediction(label=v["label"], sentences=v["sentences"]) for d, v in r["predictions"].items()
            }
            for r in recs
        }
        retrieval = retrieval_metrics(recs, claims)["retrieval"]
        label_only = abstract_metrics(claims, preds)["label_only"]
        res["conditions"][condition] = {
            "queries_per_claim": statistics.mean(len(r["result"]["queries"]) for r in recs),
            "recall@3": retrieval["recall@3"],
            "recall@5": retrieval["recall@5"],
            "label_only": {"precision": label_only.precision, "recall": label_only.recall, "f1": label_only.f1},
            "seconds_median": statistics.median(seconds),
        }
        print(condition, res["conditions"][condition], file=sys.stderr)
    res["claims_with_evidence_in_qrels"] = sum(bool(v) for v in qrels.values())
    write_experiment(args.out, args.name, res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    note = (
        "Retrieval, reranking and the judgement as the pipeline runs them; only the queries differ. "
        f"The LLM's questions cost the decompose call: median {res['decompose_seconds']['median']:.1f} s per claim "
        "in the replayed run."
    )
    lines = [*report_heading(res, "What the LLM's search questions add", note), ""]
    lines += [
        "| queries | per claim | R@3 | R@5 | Label-Only P | R | F1 | s/claim (no LLM) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    names = {
        "llm_questions": "claim + LLM questions + LLM opposite (the replayed run)",
        "negation_and_llm_questions": "claim + negation, then LLM questions + opposite (LLM_QUESTIONS=true)",
        "claim_and_negation": "claim + rule-made negation (the default)",
        "claim_only": "claim only",
    }
    for name, m in res["conditions"].items():
        lo = m["label_only"]
        lines.append(
            f"| {names[name]} | {m['queries_per_claim']:.1f} | {m['recall@3']:.3f} | {m['recall@5']:.3f} | "
            f"{lo['precision']:.3f} | {lo['recall']:.3f} | {lo['f1']:.3f} | {m['seconds_median']:.2f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
