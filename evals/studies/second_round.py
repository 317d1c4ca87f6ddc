"""What does a second search round buy when the evidence is thin?

Each SciFact claim runs the pipeline up to its verdict with the product's defaults (the embedded LLM, the local
index) and one search round allowed (SEARCH_ROUNDS=1, or the configured number when higher); the state at the first
verdict is the run without a second round, the state after the loop the run with it. Only claims whose first verdict
rests on too little take the second round, so the figures are reported on them (and on the stricter set where no
source bore at all).

    python -m evals.studies.second_round --split dev --limit 100 --out evals/results

Recall@5 is of the fused ranking the judge reads from (after a second round, what its queries found comes first);
"gold read" is the share of claims with evidence whose gold abstract the judge read in either round. Seconds are
wall time on this machine, with the LLM's own completion tokens per second from the same run."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.experiments import experiment_header, report_heading, write_experiment
from evals.scifact.data import RESULTS_DIR, evidence_qrels, load_claims
from evals.scifact.metrics import retrieval_metrics
from evals.scifact.records import make_record, run_config
from evals.scifact.scifact_metrics import DocPrediction, abstract_metrics


def run_claim(graph: Any, claim: str, deps: Any) -> tuple[dict[str, Any], float, dict[str, Any], float]:
    """(state at the first verdict, its seconds, final state, seconds of the second round)."""
    t0 = time.perf_counter()
    first: dict[str, Any] | None = None
    first_s = 0.0
    state: dict[str, Any] = {}
    seen_verdict = False
    for mode, data in graph.stream({"claim": claim}, context=deps, stream_mode=["updates", "values"]):
        if mode == "values":
            state = data
            if seen_verdict and first is None:
                first, first_s = dict(data), time.perf_counter() - t0
        elif "verdict" in data:
            seen_verdict = True
    assert first is not None
    return first, first_s, state, time.perf_counter() - t0 - first_s


def measure(recs: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    ids = {int(r["id"]) for r in recs}
    claims = [c for c in claims if int(c["id"]) in ids]
    if not claims:
        return {"claims": 0}
    preds = {int(r["id"]): predictions(r) for r in recs}
    qrels = evidence_qrels(claims)
    read = [
        bool(qrels[int(r["id"])] & {s["doc_id"] for s in r["result"]["sources"]} | read_silent(r, qrels))
        for r in recs
        if qrels.get(int(r["id"]))
    ]
    retrieval = retrieval_metrics(recs, claims)["retrieval"]
    lo = abstract_metrics(claims, preds)["label_only"]
    return {
        "claims": len(claims),
        "with_evidence": sum(bool(v) for v in qrels.values()),
        "recall@5": retrieval["recall@5"],
        "gold_read": round(sum(read) / max(1, len(read)), 4),
        "label_only": {"precision": round(lo.precision, 4), "recall": round(lo.recall, 4), "f1": round(lo.f1, 4)},
        "bearing": sum(1 for r in recs if r["result"]["verdict"]["counted_sources"] > 0),
    }


def predictions(record: Mapping[str, Any]) -> dict[str, DocPrediction]:
    return {d: DocPrediction(label=p["label"], sentences=p["sentences"]) for d, p in record["predictions"].items()}


def read_silent(record: Mapping[str, Any], qrels: Mapping[int, set[str]]) -> set[str]:
    return qrels[int(record["id"])] & {s["doc_id"] for s in record["result"].get("silent", [])}


def main(argv: list[str] | None = None) -> int:
    from agent.graph import build_graph
    from agent.llm.client import make_chat_model
    from agent.settings.app import get_settings
    from agent.state import Deps
    from tools.index.local import CorpusIndex
    from tools.models.verifier import get_verifier

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--split", default="dev", choices=["dev", "train"])
    p.add_argument("--limit", type=int, help="only the first N claims")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--name", default=None)
    args = p.parse_args(argv)

    base = get_settings()
    rounds = max(1, base.retrieval.search_rounds)
    settings = base.with_values(live={"sources": "local"}, retrieval={"search_rounds": rounds})
    claims = load_claims(settings.stores.corpus_mirror, args.split, args.limit)
    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    deps = Deps(settings=settings, llm=make_chat_model(settings), index=index, verifier=get_verifier())
    config = run_config(settings, index, retrieval_only=False, verifier=deps.verifier)
    graph = build_graph(last="reformulate")
    run_claim(graph, "Warm-up claims load the models.", deps)
    res = experiment_header("evals.studies.second_round", argv, args.split, claims)
    res["search_rounds"] = settings.retrieval.search_rounds
    firsts, finals, extra_s, tokens, llm_s = [], [], [], 0, 0.0
    for i, c in enumerate(claims, start=1):
        claim = " ".join(c["claim"].split())
        first, first_s, final, more_s = run_claim(graph, claim, deps)
        if not first.get("search_again"):
            continue
        firsts.append(make_record(int(c["id"]), first, first_s, config))
        finals.append(make_record(int(c["id"]), final, first_s + more_s, config))
        extra_s.append(more_s)
        usage = final.get("usage")
        tokens += usage.completion_tokens if usage else 0
        llm_s += float(final.get("timings", {}).get("reformulate", 0.0))
        print(f"{i}/{len(claims)} claim {c['id']}: round 2 in {more_s:.1f} s", file=sys.stderr)
    thin_ids = {int(r["id"]) for r in firsts}
    none_ids = {int(r["id"]) for r in firsts if r["result"]["verdict"]["counted_sources"] == 0}
    res["thin_claims"] = len(thin_ids)
    res["conditions"] = {}
    for subset, ids in (("thin", thin_ids), ("nothing_bore", none_ids)):
        for name, recs in (("first round only", firsts), ("with the second round", finals)):
            res["conditions"][f"{subset}|{name}"] = measure([r for r in recs if int(r["id"]) in ids], claims)
    res["second_round_seconds"] = {
        "median": round(statistics.median(extra_s), 2) if extra_s else None,
        "mean": round(statistics.mean(extra_s), 2) if extra_s else None,
        "p95": round(sorted(extra_s)[int(0.95 * (len(extra_s) - 1))], 2) if extra_s else None,
    }
    res["reformulate_completion_tokens_per_s"] = round(tokens / llm_s, 1) if llm_s else None
    res["searched_again"] = sum(1 for r in finals if len(r["result"]["queries"]) > 2)
    write_experiment(args.out, args.name or f"second_round_{args.split}", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    s = res["second_round_seconds"]
    note = (
        f"{res['thin_claims']} of {res['claims']} claims rested on too little after the first round; the LLM searched "
        f"again for {res['searched_again']} of them. The second round costs a median {s['median']} s (mean "
        f"{s['mean']}, p95 {s['p95']}) of wall time, its LLM writing at {res['reformulate_completion_tokens_per_s']} "
        "completion tokens/s (reformulate node time, which includes the prompt)."
    )
    lines = [*report_heading(res, "What the second search round buys", note), ""]
    lines += [
        "| claims | run | n | with evidence | a source bears | R@5 | gold read | Label-Only P | R | F1 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, m in res["conditions"].items():
        subset, name = key.split("|")
        if not m.get("claims"):
            continue
        lo = m["label_only"]
        lines.append(
            f"| {subset.replace('_', ' ')} | {name} | {m['claims']} | {m['with_evidence']} | {m['bearing']} | "
            f"{m['recall@5']:.3f} | {m['gold_read']:.3f} | {lo['precision']:.3f} | {lo['recall']:.3f} | "
            f"{lo['f1']:.3f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
