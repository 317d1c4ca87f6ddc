"""What the verifier's precision changes in the evidence gate, on SciFact dev: for every dev claim, the product's
retrieval and evidence selection (agent.stages, no LLM), then each verifier variant reads every candidate sentence as
the assess node does, and the shipped calibration (agent/judge/judge_calibration.json) decides which abstracts bear.

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
    from agent.settings.app import Settings

    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text("[]")  # retrieval and evidence selection ask no LLM
        settings = Settings().with_values(llm={"provider": "scripted", "script": script}, live={"sources": "local"})
        deps = load_deps(settings)
        return [(c, stages.evidence(stages.retrieval(c["claim"], deps), deps).get("evidence", [])) for c in claims]


def gate(rows: list[tuple[dict[str, Any], list[Any]]], verifier: Any, rule: Any) -> dict[tuple[int, str], float]:
    """(claim id, doc id) -> P(bears) of every retrieved abstract with a candidate sentence, as the assess node's
    rule (agent.judge.sources.JudgeRule.kept) computes it, abstracts ranked in retrieval order."""
    from agent.judge.sources import premise

    out: dict[tuple[int, str], float] = {}
    for claim, evidence in rows:
        read: dict[str, list[Any]] = {}
        for pair in zip(evidence, verifier.predict([(claim["claim"], premise(ev)) for ev in evidence]), strict=True):
            read.setdefault(str(pair[0].doc_id), []).append(pair)
        for doc, pairs in read.items():
            _, bearing = rule.kept(pairs)
            out[(int(claim["id"]), doc)] = bearing
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
    from agent.judge.calibration import load_calibration
    from agent.judge.sources import JudgeRule
    from evals.studies.onnx_quality import eight_bit_verifier
    from tools.models.verifier import Verifier

    claims = [json.loads(line) for line in (args.data_dir / "claims_dev.jsonl").read_text().splitlines()]
    gold = {(int(c["id"]), str(d)) for c in claims for d in c["evidence"]}
    cal = load_calibration()
    rule = JudgeRule(sentences_per_doc=1, stance_min_prob=0.0, labelled_docs=0, gate=cal)
    rows = candidates(claims)
    with tempfile.TemporaryDirectory() as tmp:  # the session holds the graph once it has loaded it
        variants = {
            "onnx-fp32 (run time)": Verifier(precision="fp32"),
            "onnx-int8, 7-bit weights": Verifier(precision="int8"),
            "onnx-int8, 8-bit weights (the run time before)": eight_bit_verifier(Path(tmp)),
        }
    bears = {name: gate(rows, v, rule) for name, v in variants.items()}
    ref = bears["onnx-fp32 (run time)"]
    res: dict[str, Any] = experiment_header("evals.studies.gate_precision", argv, "dev", claims)
    res["cpu"] = cpu_kind()
    res["gate_threshold"] = cal.verifier_threshold
    res["variants"] = {name: summary(p, gold, cal.verifier_threshold, ref) for name, p in bears.items()}
    write_experiment(args.out, "gate_precision", res, markdown)


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The evidence gate by verifier precision — SciFact dev",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}, {res['cpu']['model']} "
        f"({', '.join(res['cpu']['flags'])}). The verifier's gate (what counts when the LLM has not read a "
        f"paper): threshold {res['gate_threshold']} on its P(bears) (agent/judge/judge_calibration.json). Gold: the "
        "abstracts SciFact's annotators cite as evidence.",
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
