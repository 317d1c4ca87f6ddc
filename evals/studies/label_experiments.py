"""Which abstracts should get a label?

The verifier artifact, reranking on/off and the labelling rule of the assess node, measured with the official
SciFact abstract Label-Only and sentence Selection+Label F1, without an LLM.

Per claim the pipeline's retrieval and evidence stages run (retrieve -> context) and the verifier judges every
candidate sentence once; each labelling rule (agent.judge.sources.JudgeRule: stance_min_prob, labelled_docs,
plus top_docs) is then applied offline to those same judgements by the node's own ``judge_sources``.

* ``--split heldout``: the SciFact TRAIN claims the verifier never saw (tuning), claim-only queries.
* ``--split dev --replay FILE``: the dev claims of a full-run predictions file, with the LLM queries the run
  recorded. Retrieval and the verifier are deterministic given the queries, so the rule in force when the file
  was made reproduces the run's own abstract predictions (checked and reported as "replay agreement").

    python -m evals.studies.label_experiments --split heldout
    python -m evals.studies.label_experiments --split dev --replay evals/results/scifact_dev_full.predictions.jsonl.gz
    python -m evals.studies.label_experiments --split heldout --verifier /tmp/verifier_v2 --name v2
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.experiments import experiment_header, write_experiment
from evals.reliability import plot_reliability
from evals.scifact.calibration import calibration, calibration_lines
from evals.scifact.data import RESULTS_DIR, heldout_claims, load_claims
from evals.scifact.records import replay_records, scifact_predictions
from evals.scifact.scifact_metrics import abstract_metrics, sentence_metrics

MIN_PROBS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)
LABELLED = (0, 1)
TOP_DOCS = (3, 5)
MIN_CONFIDENCE = (0.0, 0.5, 0.6, 0.7, 0.8)


@dataclass
class Judged:
    """One claim under one retrieval setting: candidate evidence (retrieval order) and the verifier's results."""

    candidates: list[Any]
    results: list[Any]


def query_list(claim: str, recorded: Sequence[str] | None) -> list[Any]:
    """Queries as decompose makes them: the claim, then questions, the opposite last (replayed texts keep that
    order)."""
    from agent.state import Query

    if not recorded:
        return [Query(text=claim, kind="claim")]
    kinds = ["claim"] + ["question"] * (len(recorded) - 2) + ["opposite"]
    return [Query(text=t, kind=k) for t, k in zip(recorded, kinds, strict=True)]


def recorded_queries(record: Mapping[str, Any] | None) -> list[str] | None:
    """The queries a full run recorded for a claim (None without a record)."""
    return record["result"]["queries"] if record else None


def judge_claim(claim: str, queries: list[Any], deps: Any) -> Judged:
    from agent import stages
    from agent.judge.sources import premise

    state = stages.evidence(stages.retrieval(claim, deps, queries), deps)
    candidates = state.get("evidence", [])
    results = deps.verifier.predict([(claim, premise(ev)) for ev in candidates]) if candidates else []
    return Judged(candidates, results)


def rule_verdict(j: Judged, docs: Mapping[str, Any], top_docs: int, rule: Any, min_confidence: float) -> Any:
    """(evidence, assessments, verdict) of one claim under a rule, by the assess and verdict nodes' own functions."""
    from agent.judge.sources import judge_sources
    from agent.judge.verdict import decide

    keep = list(dict.fromkeys(ev.doc_id for ev in j.candidates))[:top_docs]
    pairs = [(ev, r) for ev, r in zip(j.candidates, j.results, strict=True) if ev.doc_id in keep]
    out = judge_sources([p[0] for p in pairs], [p[1] for p in pairs], docs, rule, weigh=lambda _doc: (1.0, {}))
    return out.evidence, out.assessments, decide(out.assessments, len(out.silent), out.no_stance, min_confidence)


def rule_predictions(j: Judged, docs: Mapping[str, Any], top_docs: int, rule: Any, min_confidence: float) -> Any:
    return scifact_predictions(*rule_verdict(j, docs, top_docs, rule, min_confidence))


def recorded_rule(records: Mapping[int, Mapping[str, Any]]) -> tuple[bool, int, float, int, float]:
    """(rerank on, top_docs, stance_min_prob, labelled_docs, min_confidence) a full run was made with (its records'
    config; runs made before verdicts could abstain decided always, min_confidence 0)."""
    cfg = next(iter(records.values()))["config"]
    min_prob, labelled, *rest = cfg["labels"]
    return bool(cfg["rerank"][0]), int(cfg["top_docs"]), float(min_prob), int(labelled), float(rest[0] if rest else 0)


def variant_name(rerank: bool, top_docs: int, min_prob: float, labelled: int, min_confidence: float) -> str:
    return (
        f"rerank {'on' if rerank else 'off'}, top_docs {top_docs}, stance_min_prob {min_prob}, "
        f"labelled_docs {labelled or 'all'}, min_confidence {min_confidence}"
    )


def main(argv: list[str] | None = None) -> int:
    from agent.judge.sources import JudgeRule
    from agent.llm.scripted import ScriptedChatModel
    from agent.settings.app import get_settings, load_preset
    from agent.state import Deps
    from tools.index.local import CorpusIndex
    from tools.models.verifier import Verifier

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--split", choices=["heldout", "dev"], default="heldout")
    p.add_argument("--replay", type=Path, help="full-run predictions file whose recorded queries are replayed")
    p.add_argument("--limit", type=int)
    p.add_argument("--verifier", type=Path, help="verifier artifact folder (default: the committed one)")
    p.add_argument("--name", default="", help="suffix of the result files")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)
    settings = get_settings().with_values(live={"sources": "local"})
    recorded: dict[int, dict[str, Any]] = {}
    if args.split == "heldout":
        claims = heldout_claims(settings.stores.corpus_mirror)
    else:
        if args.replay is None:
            p.error("--split dev needs --replay FILE (the dev claims are reported, never tuned on)")
        recorded = {int(r["id"]): r for r in replay_records(args.replay)}
        claims = [c for c in load_claims(settings.stores.corpus_mirror, "dev") if int(c["id"]) in recorded]
    claims = claims[: args.limit] if args.limit else claims
    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    verifier = Verifier(args.verifier)
    judged: dict[bool, dict[int, Judged]] = {}
    seconds: dict[str, float] = {}
    for rerank in (True, False):
        # "rerank on" when the settings turn it off: the rerank preset (the values tuned in rerank_experiments)
        top = (settings.retrieval.rerank_top or load_preset("rerank", settings).retrieval.rerank_top) if rerank else 0
        s = settings.with_values(retrieval={"rerank_top": top}, judge={"top_docs": max(TOP_DOCS)})
        deps = Deps(settings=s, llm=ScriptedChatModel(rules=[]), index=index, verifier=verifier)
        t0 = time.perf_counter()
        judged[rerank] = {
            int(c["id"]): judge_claim(
                c["claim"], query_list(c["claim"], recorded_queries(recorded.get(int(c["id"])))), deps
            )
            for c in claims
        }
        seconds[f"rerank {'on' if rerank else 'off'}"] = round((time.perf_counter() - t0) / max(1, len(claims)), 3)
    variants: dict[str, Any] = {}
    agreement = None
    grid = itertools.product((True, False), TOP_DOCS, MIN_PROBS, LABELLED, MIN_CONFIDENCE)
    for rerank, top, min_prob, labelled, min_conf in grid:
        rule = JudgeRule(settings.judge.sentences_per_doc, min_prob, labelled)
        preds = {i: rule_predictions(j, index.docs, top, rule, min_conf) for i, j in judged[rerank].items()}
        a, s_ = abstract_metrics(claims, preds), sentence_metrics(claims, preds)
        name = variant_name(rerank, top, min_prob, labelled, min_conf)
        variants[name] = {
            "abstract_label_only": vars(a["label_only"]),
            "abstract_label_rationale": vars(a["label_rationale"]),
            "sentence_selection_label": vars(s_["selection_label"]),
            "labelled_per_claim": sum(len(x) for x in preds.values()) / max(1, len(preds)),
        }
        same_verifier = args.verifier is None  # the file was made with the committed verifier
        if recorded and same_verifier and (rerank, top, min_prob, labelled, min_conf) == recorded_rule(recorded):
            agreement = sum(
                {d: [v.label, v.sentences] for d, v in preds[i].items()}
                == {d: [v["label"], v["sentences"]] for d, v in recorded[i]["predictions"].items()}
                for i in preds
            )
    product = product_rule(settings, claims, judged, index.docs)
    name = f"label_experiments_{args.split}{'_' + args.name if args.name else ''}"
    plot_reliability(
        {"verdict confidence": product["verdict_reliability"]},
        args.out / f"{name}_reliability.png",
        f"Verdict confidence on SciFact {args.split} ({len(claims)} claims)",
    )
    res = {
        **experiment_header("evals.studies.label_experiments", argv, args.split, claims),
        "product_rule": product,
        "verifier": str(args.verifier or "committed"),
        "replay": str(args.replay) if args.replay else None,
        "replay_agreement": agreement,
        "seconds_per_claim": seconds,
        "variants": variants,
    }
    write_experiment(args.out, name, res, markdown)
    return 0


def product_rule(
    settings: Any, claims: Sequence[Mapping[str, Any]], judged: Mapping[bool, Mapping[int, Judged]], docs: Any
) -> dict[str, Any]:
    """The shipped settings' own rule: its Label-Only figures at its confidence threshold, the risk–coverage table
    over thresholds and the reliability of the verdict confidence."""
    from agent.judge.sources import judge_rule

    j = settings.judge
    rerank = bool(settings.retrieval.rerank_top)
    decided = {i: rule_verdict(x, docs, j.top_docs, judge_rule(settings), 0.0) for i, x in judged[rerank].items()}
    return {
        "rule": variant_name(rerank, j.top_docs, j.stance_min_prob, j.labelled_docs, j.min_confidence),
        **calibration(claims, decided, j.min_confidence),
        "verdicts": dict(Counter(d[2].label for d in decided.values())),
    }


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        f"# Labelling rules on SciFact {res['split']} ({res['claims']} claims, {res['claims_with_evidence']} with "
        f"evidence), verifier {res['verifier']}",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}.",
        "",
        "Seconds per claim (retrieval + verifier): "
        + ", ".join(f"{k} {v}" for k, v in res["seconds_per_claim"].items()),
    ]
    if res.get("note"):
        lines += ["", res["note"]]
    if res["replay_agreement"] is not None:
        lines += [
            "",
            f"Replayed queries of `{res['replay']}`; replay agreement with the run's own predictions "
            f"(rule in force when it was made): {res['replay_agreement']} of {res['claims']} claims.",
        ]
    product = res["product_rule"]
    rel = product["verdict_reliability"]
    lines += [
        "",
        f"## The shipped rule: {product['rule']}",
        "",
        f"Verdicts before abstaining: {product['verdicts']}.",
        "",
        *calibration_lines(rel, product["risk_coverage"], product["min_confidence"]),
    ]
    lines += [
        "",
        "## Every rule of the grid",
        "",
        "Sorted by abstract Label-Only F1.",
        "",
        "| variant | Label-Only P | R | F1 | Label+Rationale F1 | Sentence Sel+Label F1 | labelled / claim |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = sorted(res["variants"].items(), key=lambda kv: -kv[1]["abstract_label_only"]["f1"])
    for name, m in rows:
        lo = m["abstract_label_only"]
        lines.append(
            f"| {name} | {lo['precision']:.3f} | {lo['recall']:.3f} | {lo['f1']:.3f} | "
            f"{m['abstract_label_rationale']['f1']:.3f} | {m['sentence_selection_label']['f1']:.3f} | "
            f"{m['labelled_per_claim']:.2f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
