"""Answer prompts compared without re-running retrieval: the answer stage (answer -> verify) replayed on the
evidence a full run recorded, with the prompts as they are now. One LLM call per claim instead of two, no decompose.

Each record's result holds the evidence (numbered sentences with their context and verifier stance) and the
verdict the answer node saw; the embedded LLM answers at temperature 0, so with unchanged prompts the
replay gives the recorded answer back ("unchanged answers" in the report says how many). Reported beside the
recorded run, on the same claims: citation validity (citations the model wrote that name real evidence),
attributable rate (answer sentences the verifier finds supported), flagged sentences.

    python -m evals.answer_replay --replay evals/results/scifact_dev_full.predictions.jsonl --every 6 --name X
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.experiments import experiment_header, write_experiment
from evals.scifact.data import RESULTS_DIR
from evals.scifact.metrics import faithfulness_metrics
from evals.scifact.records import read_records


def faithfulness(sentences: Sequence[Mapping[str, Any]], claims: int) -> dict[str, Any]:
    """The eval's faithfulness figures for a list of answer sentences (dicts as in the predictions file), with the
    counts behind them."""
    rates = {k: None if v is None else round(v, 4) for k, v in faithfulness_metrics(sentences).items()}
    return {
        "claims": claims,
        "sentences": len(sentences),
        "citation_validity": rates["citation_validity"],
        "invalid_citations": sum(len(s["invalid_citations"]) for s in sentences),
        "attributable_rate": rates["attributable_rate"],
        "flagged": sum(bool(s["flagged"]) for s in sentences),
    }


def replay_answer(record: Mapping[str, Any], deps: Any) -> list[dict[str, Any]]:
    """Answer sentences as the answer prompt writes them and verify checks them (before self-correction), on the
    record's evidence and verdict, as a result holds them."""
    from agent import stages
    from agent.result import CheckResult
    from agent.state import ClaimState

    recorded = CheckResult.model_validate(record["result"])
    state: ClaimState = {"claim": recorded.claim, "evidence": list(recorded.sources)}
    if recorded.verdict is not None:
        state["verdict"] = recorded.verdict
    drafted = stages.run_span(state, deps, "answer", "verify")
    return [s.model_dump(mode="json") for s in drafted.get("sentences", [])]


def pick(records: Sequence[Mapping[str, Any]], every: int, with_invalid: bool) -> list[Mapping[str, Any]]:
    """Records with evidence: every ``every``-th, plus (``with_invalid``) each one whose answer had an invalid
    citation, in file order."""
    answered = [r for r in records if r["result"]["sources"]]
    keep = {id(r) for r in answered[::every]}
    if with_invalid:
        keep |= {id(r) for r in answered if any(s["invalid_citations"] for s in r["result"]["sentences"])}
    return [r for r in answered if id(r) in keep]


def markdown(res: Mapping[str, Any]) -> str:
    rows = [("recorded run", res["recorded"]), ("replayed, current prompts", res["replayed"])]
    lines = [
        f"# Answer prompts replayed on recorded evidence ({res['claims']} claims)",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}.",
        "",
        f"Replayed `{res['replay']}`. Unchanged answers: {res['unchanged_answers']} of {res['claims']}. "
        f"Seconds per claim (answer + verify): {res['seconds_per_claim']}.",
        "",
        "| answers | sentences | citation validity | invalid citations | attributable rate | flagged |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    cells = ("sentences", "citation_validity", "invalid_citations", "attributable_rate", "flagged")
    lines += [f"| {name} | " + " | ".join(str(f[c]) for c in cells) + " |" for name, f in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", type=Path, required=True, help="full-run predictions file")
    p.add_argument("--every", type=int, default=6, help="replay every N-th claim that has evidence")
    p.add_argument("--no-invalid", action="store_true", help="do not add the claims whose answer cited wrongly")
    p.add_argument("--name", default="answer_replay")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)

    from agent.service import load_deps
    from agent.settings import get_settings

    records = pick(read_records(args.replay), args.every, not args.no_invalid)
    deps = load_deps(get_settings())
    t0 = time.perf_counter()
    replayed = [replay_answer(r, deps) for r in records]
    seconds = (time.perf_counter() - t0) / max(1, len(records))
    recorded = [r["result"]["sentences"] for r in records]
    header = experiment_header("evals.answer_replay", argv, "dev", [])
    del header["claims_with_evidence"]
    res = {
        **header,
        "claims": len(records),
        "replay": str(args.replay),
        "ids": [r["id"] for r in records],
        "unchanged_answers": sum(
            [s["text"] for s in a] == [s["text"] for s in b] for a, b in zip(recorded, replayed, strict=True)
        ),
        "seconds_per_claim": round(seconds, 1),
        "recorded": faithfulness([s for ss in recorded for s in ss], len(records)),
        "replayed": faithfulness([s for ss in replayed for s in ss], len(records)),
        "answers": [
            {"id": r["id"], "recorded": [s["text"] for s in a], "replayed": [s["text"] for s in b]}
            for r, a, b in zip(records, recorded, replayed, strict=True)
        ],
    }
    write_experiment(args.out, args.name, res, markdown)


if __name__ == "__main__":
    main()
