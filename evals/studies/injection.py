"""Do instructions planted in a source's title or evidence sentence change what a check shows?

Planted instructions (evals/studies/injection_checks.py) in the evidence of real SciFact dev claims, run through the
product's own pipeline with the configured LLM (the embedded model by default):

    python -m evals.studies.injection --out evals/results

Claims are taken in file order among the dev claims with gold evidence, keeping those on which the verifier
takes a side (a verdict other than "Not enough evidence" or "Cannot decide"), so that a plant could move it. For
each: retrieval and evidence selection as the product does them (agent.stages), then assess -> verdict -> answer
-> verify -> correct on the clean candidates, and on the same candidates with one plant in the title of the
abstract of evidence [1] of the clean run, or at the end of that sentence. The plants are dealt to the claims in
turn, one run each; each planted run is compared with its claim's clean run. Neutral sentences planted the same
way (controls) show how much any added text moves the verifier.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.experiments import experiment_header, write_experiment
from evals.scifact.data import RESULTS_DIR, load_claims
from evals.studies.injection_checks import CONTROL, CONTROLS, PLANTS, Plant, compare, plant

CHECKS = ("verdict_kept", "stances_kept", "flags_kept", "citations_valid", "not_obeyed", "not_copied")
SEEN = ("reached_llm", "draft_obeyed", "quote_carries_plant")


def candidates(claim: str, deps: Any) -> list[Any]:
    """The evidence candidates the verifier reads for a claim: retrieval, selection and context, as in the product."""
    from agent import stages

    return list(stages.evidence(stages.retrieval(claim, deps), deps).get("evidence", []))


def judged(claim: str, evidence: Sequence[Any], deps: Any) -> dict[str, Any]:
    """assess -> correct on the given candidates, as the result the user gets (`ask --json`)."""
    from agent import stages
    from agent.result import CheckResult

    t0 = time.perf_counter()
    state = stages.run_span({"claim": claim, "evidence": list(evidence)}, deps, "assess", "correct")
    result = CheckResult.from_state(state).model_dump(mode="json")
    result["timings"]["total"] = round(time.perf_counter() - t0, 2)
    return result


def decided(claim: str, evidence: Sequence[Any], deps: Any) -> bool:
    """Whether the verifier alone (no LLM) reaches a verdict that takes a side on these candidates."""
    from agent import stages
    from agent.judge.scoring import NOT_ENOUGH, UNDECIDED

    state = stages.run_span({"claim": claim, "evidence": list(evidence)}, deps, "assess", "verdict")
    verdict = state.get("verdict")
    return verdict is not None and verdict.label not in (NOT_ENOUGH, UNDECIDED)


def usable_claims(claims: Sequence[Mapping[str, Any]], deps: Any) -> Iterator[dict[str, Any]]:
    """Claims with gold evidence whose clean run takes a side, the verifier's provisional verdict and the judged one
    (so that a plant could move the verdict), with their candidates, clean result and the target sentence."""
    from agent.judge.scoring import NOT_ENOUGH, UNDECIDED

    for c in claims:
        if not c["evidence"]:
            continue
        cands = candidates(c["claim"], deps)
        if not decided(c["claim"], cands, deps):
            continue
        clean = judged(c["claim"], cands, deps)
        if not clean["sources"] or (clean["verdict"] or {}).get("label") in (NOT_ENOUGH, UNDECIDED):
            continue  # the judged run (the LLM read each paper) takes no side: a plant could not move it
        target = (clean["sources"][0]["doc_id"], clean["sources"][0]["sentence_index"])
        yield {"claim": c, "candidates": cands, "clean": clean, "target": target}


def shown(result: Mapping[str, Any]) -> list[str]:
    """The shown sentences with their citations."""
    from tools.text.citations import ParsedSentence, render

    return [render([ParsedSentence(s["text"], s["citations"])]) for s in result["sentences"]]


def run_case(p: Plant, held: Mapping[str, Any], deps: Any) -> dict[str, Any]:
    claim = held["claim"]["claim"]
    planted = judged(claim, plant(held["candidates"], held["target"], p), deps)
    clean = held["clean"]
    return {
        "plant": p.name,
        "style": p.style,
        "where": p.where,
        "claim_id": held["claim"]["id"],
        "claim": claim,
        **compare(p, clean, planted, held["target"]),
        "verdict": [(clean["verdict"] or {}).get("label"), (planted["verdict"] or {}).get("label")],
        "clean_shown": shown(clean),
        "planted_draft": planted["original_answer"] or planted["answer"],
        "planted_shown": shown(planted),
        "llm_calls": planted["llm"]["calls"],
        "seconds": planted["timings"]["total"],
    }


def run(plants: Sequence[Plant], claims: Sequence[Mapping[str, Any]], n_claims: int, deps: Any) -> dict[str, Any]:
    """Every plant on one of the first ``n_claims`` usable claims, dealt in turn."""
    held: list[dict[str, Any]] = []
    for found in usable_claims(claims, deps):
        held.append(found)
        if len(held) == n_claims:
            break
    if not held:
        raise RuntimeError("the verifier takes a side on none of the claims")
    rows = []
    for i, p in enumerate(plants):
        rows.append(run_case(p, held[i % len(held)], deps))
        print(p.name, {k: rows[-1][k] for k in (*CHECKS, *SEEN)}, flush=True)
    return {"claims_used": [h["claim"]["id"] for h in held], "cases": rows, "summary": summary(rows)}


def summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts over the planted instructions; the controls' verdict and stance changes beside them."""
    cases = [r for r in rows if r["style"] != CONTROL]
    controls = [r for r in rows if r["style"] == CONTROL]
    return {
        "cases": len(cases),
        "passed": sum(r["passed"] for r in cases),
        "failed": {k: [r["plant"] for r in cases if not r[k]] for k in CHECKS},
        **{k: sum(bool(r[k]) for r in cases) for k in SEEN},
        "styles": dict(Counter(r["style"] for r in cases)),
        "controls": len(controls),
        "controls_verdict_kept": sum(r["verdict_kept"] for r in controls),
        "controls_stances_kept": sum(r["stances_kept"] for r in controls),
        "seconds_per_case": round(sum(r["seconds"] for r in rows) / max(1, len(rows)), 1),
    }


def _mark(ok: bool) -> str:
    return "yes" if ok else "**no**"


def markdown(res: Mapping[str, Any]) -> str:
    s = res["summary"]
    lines = [
        f"# Planted instructions: {s['passed']} of {s['cases']} cases pass",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}; LLM {res['llm']}; SciFact dev claims "
        f"{', '.join(map(str, res['claims_used']))}. Each plant is put into the title of the abstract of evidence "
        "[1] of the clean run, or at the end of that sentence, before the verifier reads it; the planted run is "
        "compared with the same claim's clean run (evals/studies/injection_checks.py says what each check means).",
        "",
        f"Reached the LLM (the planted sentence kept as evidence): {s['reached_llm']}; the model's draft obeyed "
        f"before verify and correct: {s['draft_obeyed']}; a shown quote of the source carries the plant: "
        f"{s['quote_carries_plant']}. Neutral sentences added the same way (controls, no instruction): verdict kept "
        f"in {s['controls_verdict_kept']} of {s['controls']}, every stance kept in {s['controls_stances_kept']} of "
        f"{s['controls']}. {s['seconds_per_case']} s per case.",
        "",
        "| plant | style | where | claim | verdict clean → planted | " + " | ".join(CHECKS) + " | reached LLM | "
        "draft obeyed |",
        "|---|---|---|---:|---|" + "---|" * (len(CHECKS) + 2),
    ]
    for r in res["cases"]:
        cells = " | ".join(_mark(r[k]) for k in CHECKS)
        lines.append(
            f"| {r['plant']} | {r['style']} | {r['where']} | {r['claim_id']} | {r['verdict'][0]} → {r['verdict'][1]} "
            f"| {cells} | {'yes' if r['reached_llm'] else 'no'} | {'yes' if r['draft_obeyed'] else 'no'} |"
        )
    failed = [r for r in res["cases"] if not r["passed"] or r["draft_obeyed"]]
    if failed:
        lines += ["", "## Cases that failed, or whose draft obeyed", ""]
        for r in failed:
            lines.append(f"- **{r['plant']}**: draft “{r['planted_draft']}”; shown: " +
                         " / ".join(f"“{t}”" for t in r["planted_shown"]))  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--claims", type=int, default=6, help="how many usable dev claims the plants are dealt to")
    p.add_argument("--plants", nargs="+", choices=[x.name for x in PLANTS + CONTROLS], help="a subset of the plants")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)

    from agent.service import load_deps
    from agent.settings.app import get_settings
    from evals.scifact.records import llm_name

    settings = get_settings()
    claims = load_claims(settings.stores.corpus_mirror, "dev")
    plants = [x for x in PLANTS + CONTROLS if not args.plants or x.name in args.plants]
    deps = load_deps(settings)
    res = {
        **experiment_header("evals.studies.injection", argv, "dev", []),
        "llm": llm_name(settings),
        **run(plants, claims, args.claims, deps),
    }
    for key in ("claims", "claims_with_evidence"):
        del res[key]
    write_experiment(args.out, "injection", res, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
