"""What the verifier's precision changes in the evidence gate, on SciFact dev: for every dev claim, the product's
retrieval and evidence selection (agent.stages, no LLM), then each verifier variant reads every candidate sentence as
the assess node does, and the shipped calibration (agent/judge_calibration.json) decides which abstracts bear.

    python -m evals.studies.gate_precision --out evals/results

Reported per variant: the abstracts that pass the gate, how many of them SciFact's annotators cite (gold) and how
many gold abstracts among those retrieved pass, and the abstracts whose gate decision differs from the fp32 graph's
(the run time's), with how far each sits from the threshold. The LLM's direction does not read the verifier, so
what the gate lets through is all that the verifier's precision changes in a verdict.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, cpu_kind, experiment_header, write_experiment

DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "scifact"


def candidates(claims: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[Any]]]:
    """Each claim with its candidate evidence sentences, as the product's stages select them (the settings' index)."""
    from agent import stages
    from agent.service import load_deps
    from agent.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text("[]")  # retrieval and evidence selection ask no LLM
        settings = Settings().with_values(llm={"provider": "scripted", "script": script}, live={"sources": "local"})
        deps = load_deps(settings)
        return [(c, stages.evidence(stages.retrieval(c["claim"], deps), deps).get("evidence", [])) for c in claims]


def gate(
    rows: list[tuple[dict[str, Any], list[Any]]], predict: Any, calibration: Any
) -> dict[tuple[int, str], float]:
    """(claim id, doc id) -> P(bears) of every retrieved abstract with a candidate sentence."""
    from agent.nodes.assess import premise

    out: dict[tuple[int, str], float] = {}
    for claim, evidence in rows:
        if not evidence:
            continue
        results = predict([(claim["claim"], premise(ev)) for ev in evidence])
        best: dict[str, float] = {}
        for ev, r in zip(evidence, results, strict=True):
            best[str(ev.doc_id)] = max(best.get(str(ev.doc_id), 0.0), 1.0 - r.p_nei)
        rank = {d: i + 1 for i, d in enumerate(dict.fromkeys(str(ev.doc_id) for ev in evidence))}
        for doc, bearing in best.items():
            out[(int(claim["id"]), doc)] = calibration.bearing(bearing, rank[doc])
    return out


Bears = Mapping[tuple[int, str], float]


def summary(p: Bears, gold: set[tuple[int, str]], threshold: float, ref: Bears) -> dict[str, Any]:
    passed = {k for k, v in p.items() if v >= threshold}
    ref_passed = {k for k, v in ref.items() if v >= threshold}
    flips = sorted(passed ^ ref_passed)
    return {
        "abstracts_read": len(p),
        "passed": len(passed),
        "passed_gold": len(passed & gold),
        "gold_read": len(gold & set(p)),
        "precision_vs_gold": round(len(passed & gold) / len(passed), 4) if passed else None,
        "decisions_unlike_fp32": len(flips),
        "unlike_fp32": [
            {"claim": c, "doc": d, "p_bears": round(p[k], 4), "fp32": round(ref[k], 4), "gold": k in gold}
            for k in flips
            for c, d in [k]
        ],
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR)
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = ap.parse_args(argv)
    from agent.judge import load_calibration
    from evals.studies.onnx_quality import EightBitVerifier
    from tools.verifier import LABELS, Verifier, VerifierResult

    claims = [json.loads(line) for line in (args.data_dir / "claims_dev.jsonl").read_text().splitlines()]
    gold = {(int(c["id"]), str(d)) for c in claims for d in c["evidence"]}
    cal = load_calibration()
    rows = candidates(claims)
    eight = EightBitVerifier()

    def eight_bit(pairs: list[tuple[str, str]]) -> list[VerifierResult]:
        return [
            VerifierResult(LABELS[max(range(3), key=lambda k: p[k])], *p)
            for p in eight.predict_proba(pairs)
        ]

    variants = {
        "onnx-fp32 (run time)": Verifier(precision="fp32").predict,
        "onnx-int8, 7-bit weights": Verifier(precision="int8").predict,
        "onnx-int8, 8-bit weights (the run time before)": eight_bit,
    }
    bears = {name: gate(rows, predict, cal) for name, predict in variants.items()}
    ref = bears["onnx-fp32 (run time)"]
    res: dict[str, Any] = experiment_header("evals.studies.gate_precision", argv, "dev", claims)
    res["cpu"] = cpu_kind()
    res["gate_threshold"] = cal.gate_threshold
    res["variants"] = {name: summary(p, gold, cal.gate_threshold, ref) for name, p in bears.items()}
    write_experiment(args.out, "gate_precision", res, markdown)


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The evidence gate by verifier precision — SciFact dev",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}, {res['cpu']['model']} "
        f"({', '.join(res['cpu']['flags'])}). Gate threshold {res['gate_threshold']} on P(bears) "
        "(agent/judge_calibration.json). Gold: the abstracts SciFact's annotators cite as evidence.",
        "",
        "| verifier | abstracts read | pass the gate | of them gold | gold read / passing | decisions unlike fp32 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, v in res["variants"].items():
        lines.append(
            f"| {name} | {v['abstracts_read']} | {v['passed']} | {v['passed_gold']} ({v['precision_vs_gold']}) | "
            f"{v['gold_read']} / {v['passed_gold']} | {v['decisions_unlike_fp32']} |"
        )
    lines += ["", "Decisions unlike fp32 (P(bears) of the variant / of fp32; * gold):", ""]
    for name, v in res["variants"].items():
        if v["unlike_fp32"]:
            shown = ", ".join(
                f"{u['claim']}/{u['doc']}{'*' if u['gold'] else ''} {u['p_bears']}/{u['fp32']}"
                for u in v["unlike_fp32"]
            )
            lines.append(f"- {name}: {shown}")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
