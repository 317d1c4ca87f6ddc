"""Does a bearing question that names null and contrary results (prompts/bears_null.md: "that it holds, that it
does not hold, or that no effect or difference was found") tell the papers that bear from the rest better than the
shipped one (prompts/bears.md), which the embedded LLM answers No for many null or contradicting findings?

    python -m evals.studies.bearing_question ask [--limit N]     # the LLM's answers, resumable
    python -m evals.studies.bearing_question report [--out evals/results]

``ask`` reads every abstract of the judge's replay of held-out SciFact train claims (evals/training/bearing_replay.py)
as the product shows it to the LLM and asks the other question, with the same system prompt, reading P(Yes) from
the first token. One JSON row per abstract in ``evals/results/bearing_question/answers.jsonl``. ``report`` sets the
two gates side by side as evals/studies/replay_folds.py compares judges (five folds of claims, each gate, direction and
threshold fitted on four and labelling the fifth), with the shipped direction (the two-order A/B call) for both.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import prompts
from agent.judge.direction import yes_share
from agent.llm.calls import first_token
from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.studies.replay_folds import (
    ask_replay,
    ask_report_main,
    judges_compared,
    study_rows,
)

ANSWERS = REPO_ROOT / "evals" / "results" / "bearing_question" / "answers.jsonl"
JUDGES = {
    "shipped question (prompts/bears.md)": lambda d, a: (d["llm_p_bears"], d["llm_p_claim"]),
    "question naming null and contrary results (prompts/bears_null.md)": lambda d, a: (a["p_bears"],
                                                                                       d["llm_p_claim"]),
}


def p_bears(llm: Any, evidence: str, claim: str) -> float:
    """P(Yes) to the question that names null and contrary results, with the judge's system prompt and the evidence
    first, as agent.judge.direction.bears asks its own."""
    user = prompts.render("bears_null", evidence=evidence, claim=claim)
    reply, probs, _ = first_token(llm, prompts.load("judge_system"), user)
    return round(yes_share(probs, reply), 4)


def ask(limit: int | None, path: Path = ANSWERS) -> None:
    """Asks the other bearing question of every replayed abstract that ``path`` does not hold yet."""
    ask_replay(limit, path, lambda llm, text, row: {"p_bears": p_bears(llm, text, row["text"])}, "bearing question")


def report(answers: Path, out: Path, argv: list[str] | None) -> int:
    from agent.settings.app import get_settings
    from evals.training.judge_calibration import auc

    rows = study_rows(answers, "bearing_question")
    if not rows:
        return 2
    docs = [d for r in rows for d in r["docs"]]
    gold = [d["gold"] is not None for d in docs]
    contradicting = [d for d in docs if d["gold"] == 1]
    min_confidence = get_settings().judge.min_confidence
    res: dict[str, Any] = {
        **experiment_header("evals.studies.bearing_question", argv, "held-out SciFact train", []),
        "claims": len(rows),
        "abstracts": len(docs),
        "evidence_abstracts": sum(gold),
        "auc_evidence": {
            "verifier 1 - P(nei)": auc([d["bearing"] for d in docs], gold),
            "shipped question": auc([d["llm_p_bears"] for d in docs], gold),
            "question naming null and contrary results": auc([d["answer"]["p_bears"] for d in docs], gold),
        },
        "mean_p_yes": {
            "contradicting evidence, shipped": round(sum(d["llm_p_bears"] for d in contradicting)
                                                     / max(1, len(contradicting)), 4),
            "contradicting evidence, naming null results": round(sum(d["answer"]["p_bears"] for d in contradicting)
                                                                 / max(1, len(contradicting)), 4),
        },
        # each judge asks one bearing question and the contrastive direction in both orders: 3 calls an abstract
        "judges": judges_compared(rows, {name: (reading, 3) for name, reading in JUDGES.items()}, min_confidence),
    }
    write_experiment(out, "bearing_question", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The bearing question: does naming null and contrary results help?",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {res['claims']} held-out SciFact train "
        f"claims, {res['abstracts']} retrieved abstracts ({res['evidence_abstracts']} SciFact evidence). Each "
        "gate, direction and threshold fitted on four folds of claims and labelling the fifth; the direction is the "
        "shipped A/B call for both.",
        "",
        "Area under the ROC curve for \"SciFact evidence\": "
        + "; ".join(f"{k} {v}" for k, v in res["auc_evidence"].items()) + ".",
        "",
        "Mean P(Yes) on contradicting evidence abstracts: "
        + "; ".join(f"{k} {v}" for k, v in res["mean_p_yes"].items()) + ".",
        "",
        "| gate question | Label-Only P | R | F1 | labels | bearing set: bears count | partly | no (off-topic) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, j in res["judges"].items():
        s, b = j["label_only"], j["bearing_set"]
        cells = [f"{c}/{n}" for c, n in (b["bears"], b["partly"], b["no"])]
        lines.append(f"| {name} | {s['precision']} | {s['recall']} | {s['f1']} | {s['predicted']} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return ask_report_main(__doc__ or "", argv, ANSWERS, ask, report)


if __name__ == "__main__":
    sys.exit(main())
