"""What does the evidence hierarchy do to verdicts?

The recorded checks of an eval run are judged again, once with every design weighted alike (the weighting before study
designs counted) and once with the shipped hierarchy, in the same run. The assessments (labels, stance confidences) are
the recorded ones; only the weights and the verdict change.

    python -m evals.studies.design_weighting --records evals/results/scifact_dev_full.predictions.jsonl.gz \
        --split dev --out evals/results

Reports: verdicts whose label changes, verdict side accuracy against SciFact's claim labels, abstract Label-Only
F1 (the product's default abstention), and how many verdicts rest only on weak designs."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.judge.scoring import NOT_ENOUGH, reputation, verdict_sign
from agent.judge.verdict import decide
from agent.result import Source
from agent.settings.app import get_settings
from agent.state import SourceAssessment
from evals.experiments import REPO_ROOT
from evals.scifact.calibration import claim_label
from evals.scifact.data import load_claims
from evals.scifact.records import replay_records, scifact_predictions
from evals.scifact.scifact_metrics import abstract_metrics
from tools.corpus import Abstract, load_corpus
from tools.documents.design import DEFAULT_WEAK, DEFAULT_WEIGHTS, DESIGNS

DATA = REPO_ROOT.parent / "shared" / "data" / "scifact"
FLAT: dict[str, float] = dict.fromkeys(DESIGNS, 1.0)


def rejudge(
    records: Sequence[Mapping[str, Any]], docs: Mapping[str, Abstract], weights: Mapping[str, float]
) -> dict[int, tuple[list[Any], Any]]:
    """claim id -> (assessments with ``weights``' reputation, verdict), from the recorded assessments."""
    settings = get_settings()
    out: dict[int, tuple[list[Any], Any]] = {}
    for rec in records:
        res = rec["result"]
        if res.get("verdict") is None:
            continue
        assessed = []
        for raw in res["assessments"]:
            a = SourceAssessment(**raw)
            weight, inputs = reputation(docs[a.doc_id], weights)
            assessed.append(a.model_copy(update={"reputation": weight, "reputation_inputs": inputs}))
        silent = int(res["verdict"].get("irrelevant", 0)) - sum(1 for a in assessed if a.score == 0)
        no_stance = float(res["verdict"].get("confidence", 1.0)) if not assessed else 1.0
        out[int(rec["id"])] = (
            assessed,
            decide(assessed, max(0, silent), no_stance, settings.judge.min_confidence, DEFAULT_WEAK),
        )
    return out


def side_accuracy(claims: Sequence[Mapping[str, Any]], verdicts: Mapping[int, Any]) -> dict[str, float | int]:
    """Share of verdicts on the claim's side (NEI claims: "Not enough evidence"); abstentions count as wrong."""
    gold = {int(c["id"]): claim_label(c) for c in claims}
    right = 0
    for i, v in verdicts.items():
        if v.label == NOT_ENOUGH:
            right += gold[i] == "NEI"
        elif verdict_sign(v.label):
            right += gold[i] == ("SUPPORT" if verdict_sign(v.label) > 0 else "CONTRADICT")
    return {"right": right, "n": len(verdicts), "accuracy": round(right / max(1, len(verdicts)), 4)}


def measure(records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]], docs: Mapping[str, Abstract]
            ) -> dict[str, Any]:
    by_id = {int(r["id"]): r for r in records}
    claims = [c for c in claims if int(c["id"]) in by_id]
    runs = {"flat": rejudge(records, docs, FLAT), "hierarchy": rejudge(records, docs, DEFAULT_WEIGHTS)}
    report: dict[str, Any] = {"claims": len(claims), "weights": DEFAULT_WEIGHTS, "weak": list(DEFAULT_WEAK)}
    for name, judged in runs.items():
        evidence = {i: by_id[i]["result"]["sources"] for i in judged}
        preds = {
            i: scifact_predictions([Source(**s) for s in evidence[i]], assessed, v)
            for i, (assessed, v) in judged.items()
        }
        lo = abstract_metrics(claims, preds)["label_only"]
        verdicts = {i: v for i, (_, v) in judged.items()}
        report[name] = {
            "side": side_accuracy(claims, verdicts),
            "label_only_f1": round(lo.f1, 4),
            "labels": dict(Counter(v.label for v in verdicts.values()).most_common()),
            "weak_designs_only": sum(1 for v in verdicts.values() if v.weak_designs),
        }
    flat, ranked = runs["flat"], runs["hierarchy"]
    report["changed"] = [
        {"id": i, "flat": flat[i][1].label, "hierarchy": ranked[i][1].label,
         "designs": [a.reputation_inputs["design"] for a in ranked[i][0]]}
        for i in sorted(flat) if flat[i][1].label != ranked[i][1].label
    ]
    report["designs_of_labelled_sources"] = dict(
        Counter(a.reputation_inputs["design"] for assessed, _ in ranked.values() for a in assessed).most_common()
    )
    return report


def markdown(report: Mapping[str, Any], command: str) -> str:
    lines = [
        "# Study design in the weighting: the same recorded checks judged with flat weights and with the hierarchy",
        "",
        f"Command: `{command}`",
        "",
        f"Claims: {report['claims']}. Weights: {report['weights']}. Weak designs: {report['weak']}.",
        "",
        "| weighting | verdict on the claim's side | Label-Only F1 | verdicts resting only on weak designs |",
        "|---|---|---|---|",
    ]
    for name in ("flat", "hierarchy"):
        r = report[name]
        lines.append(f"| {name} | {r['side']['right']}/{r['side']['n']} ({r['side']['accuracy']:.3f}) | "
                     f"{r['label_only_f1']:.4f} | {r['weak_designs_only']} |")
    lines += ["", f"Verdicts whose label changes: {len(report['changed'])}", ""]
    lines += [f"- claim {c['id']}: {c['flat']} → {c['hierarchy']} (designs {', '.join(c['designs'])})"
              for c in report["changed"]]
    lines += ["", f"Designs of the labelled sources (text rules on SciFact abstracts): "
              f"{report['designs_of_labelled_sources']}", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=Path, required=True)
    p.add_argument("--split", default="dev")
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--out", type=Path, default=Path("evals/results"))
    args = p.parse_args(argv)
    records = replay_records(args.records)
    docs = {d.doc_id: d for d in load_corpus(args.data / "corpus.jsonl")[0]}
    report = measure(records, load_claims(args.data, args.split), docs)
    command = f"python -m evals.studies.design_weighting --records {args.records} --split {args.split} --out {args.out}"
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"design_weighting_{args.split}"
    (args.out / f"{name}.json").write_text(json.dumps({"command": command, **report}, indent=1) + "\n")
    (args.out / f"{name}.md").write_text(markdown(report, command))
    print(markdown(report, command))


if __name__ == "__main__":
    main()
