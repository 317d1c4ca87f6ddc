"""The judge reading each paper in its context: the LLM's two questions (does the evidence bear on the claim? which
of the claim and its opposite does it support?) asked of the abstract around the evidence sentences
(agent.judge.direction.abstract_text) instead of the sentences alone, and the bearing question also asked of the
claim's opposite, on the judge's replay of held-out SciFact train claims.

    python -m evals.studies.in_context ask [--limit N]     # the LLM's answers, resumable
    python -m evals.studies.in_context report [--out evals/results]

A null finding ("no association was found") is often in a sentence the rationale selector did not pick, and the
yes/no gate reads it as "no finding": on contradicting evidence the shipped gate is close to chance. ``ask`` reads
every abstract of the replay (evals/training/bearing_replay.py) and asks, in this order (the abstract's prompts share
their prefix, so a server with a prompt cache reads the abstract once):

* P(Yes) that the abstract around the evidence bears on the claim, then on its opposite (prompts/bears.md);
* P(Yes) that the shown sentences bear on the claim (the shipped question), then on its opposite: a null finding
  ("no association was found") is a finding on "X does not cause Y" even where the 1.5B model reads it as none on
  "X causes Y". These go to ``shown_opposite.jsonl`` beside the answers.
* P(claim) from the direction's contrastive question (the claim or its opposite, both letter orders) on the abstract
  around the evidence: on a third of SciFact's evidence papers the shown sentences leave the direction at chance.
  These go to ``direction_in_context.jsonl``.

The judges below read the direction on the shown sentences (the replay's), in context, or both. The abstract around
the evidence is the evidence sentences and their nearest neighbours up to agent.judge.direction.ABSTRACT_CHARS: a
whole abstract costs 13-19 s a paper to read on a 2-core CPU, three times a check's reading budget.

One JSON row per abstract in ``evals/results/in_context/answers.jsonl``. ``report`` compares the judges below with
five folds of claims, as evals/studies/neither_choice.py does (each judge's gate, direction and threshold fitted on
four folds, labelling the fifth), and adds what a user sees: the held-out claims' verdict side (right, wrong, none)
per gold class, from the out-of-fold labels (evals.scifact.claim_level.replay_side).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import cpu_name, experiment_header, write_experiment
from evals.scifact.claim_level import GOLD_CLASSES
from evals.studies.replay_folds import (
    TARGET_PRECISION,
    Reading,
    ask_replay,
    ask_report_main,
    judges_compared,
    mean_of,
    side_aucs,
    study_rows,
)
from evals.training.judge_calibration import auc
from evals.training.replay_readings import DIRECTION_IN_CONTEXT, IN_CONTEXT, SHOWN_OPPOSITE, answered

ANSWERS = IN_CONTEXT
SHOWN = SHOWN_OPPOSITE.name  # beside the answers: the shown sentences asked of the claim and of its opposite
DIRECTION = DIRECTION_IN_CONTEXT.name  # beside the answers: the direction asked of the abstract around the evidence


def read_in_context(llm: Any, context: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """The bearing question of the claim and of its opposite on the abstract around the evidence; seconds per
    call (the second shares the first's prompt prefix)."""
    from agent.judge.direction import bears

    asked = {"p_bears": (context, row["text"]), "p_bears_opposite": (context, row["opposite"])}
    answer: dict[str, Any] = {"context_chars": len(context), "whole": "[the whole abstract]" in context,
                              "seconds": {}}
    for key, (text, statement) in asked.items():
        t0 = time.perf_counter()
        answer[key] = bears(llm, text, statement).p_bears
        answer["seconds"][key] = round(time.perf_counter() - t0, 3)
    return answer


def read_shown(llm: Any, shown: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """The shipped bearing question on the shown sentences, of the claim and then of its opposite, as the judge asks
    them in a check (the second shares the first's prompt prefix); seconds per call."""
    from agent.judge.direction import bears

    answer: dict[str, Any] = {"seconds": {}}
    for key, statement in (("p_shown_bears", row["text"]), ("p_shown_bears_opposite", row["opposite"])):
        t0 = time.perf_counter()
        answer[key] = bears(llm, shown, statement).p_bears
        answer["seconds"][key] = round(time.perf_counter() - t0, 3)
    return answer


def read_direction(llm: Any, context: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """The direction's contrastive question (claim or opposite, both orders) on the abstract around the evidence:
    the shown sentences alone leave the LLM at chance on a third of SciFact's evidence papers."""
    from agent.judge.direction import choose

    t0 = time.perf_counter()
    p_claim = choose(llm, context, row["text"], row["opposite"]).p_claim
    return {"p_claim_context": p_claim, "seconds": {"p_claim_context": round(time.perf_counter() - t0, 3)}}


def ask(limit: int | None, path: Path = ANSWERS) -> None:
    from agent.judge.direction import abstract_text

    ask_replay(limit, path, read_in_context, "in context", reader=abstract_text)
    ask_replay(limit, path.with_name(SHOWN), read_shown, "shown, claim and opposite")
    ask_replay(limit, path.with_name(DIRECTION), read_direction, "direction in context", reader=abstract_text)


def with_beside(rows: list[dict[str, Any]], answers: Path, *names: str) -> list[dict[str, Any]]:
    """The rows whose every abstract also has its answers in each of the files ``names`` beside ``answers``
    (``read_shown``, ``read_direction``), merged into its answer."""
    for name in names:
        rows = answered(rows, answers.with_name(name), lambda d, a: {
            **d, "answer": {**d["answer"], **a, "seconds": {**d["answer"]["seconds"], **a["seconds"]}}})
    return rows


def shown_or_opposite(d: Mapping[str, Any], a: Mapping[str, Any]) -> tuple[float, float]:
    """The shipped gate's reading: the shown sentences, of the claim and its opposite, the higher."""
    return max(d["llm_p_bears"], a["p_shown_bears_opposite"]), d["llm_p_claim"]


def more_decided(*p_claims: float) -> float:
    """The reading furthest from 0.5: where one reading sits at chance, the other decides."""
    return max(p_claims, key=lambda p: abs(p - 0.5))


JUDGES: dict[str, tuple[Reading, int]] = {  # name: (reading, LLM calls per abstract)
    "shown sentences (shipped)": (lambda d, a: (d["llm_p_bears"], d["llm_p_claim"]), 3),
    "gate in context": (lambda d, a: (a["p_bears"], d["llm_p_claim"]), 3),
    "gate in context, asked of the claim and its opposite": (
        lambda d, a: (mean_of(a["p_bears"], a["p_bears_opposite"]), d["llm_p_claim"]), 4),
    "gate in context or on the shown sentences, the higher": (
        lambda d, a: (max(a["p_bears"], d["llm_p_bears"]), d["llm_p_claim"]), 4),
    "gate in context, of the claim and its opposite, the higher": (
        lambda d, a: (max(a["p_bears"], a["p_bears_opposite"]), d["llm_p_claim"]), 4),
    "gate on the shown sentences, asked of the claim and its opposite": (
        lambda d, a: (mean_of(d["llm_p_bears"], a["p_shown_bears_opposite"]), d["llm_p_claim"]), 4),
    "gate on the shown sentences, of the claim and its opposite, the higher": (shown_or_opposite, 4),
    "the same, with the verifier's vote in the direction": (shown_or_opposite, 4),
    "the highest of the shown sentences and the context, of the claim and its opposite": (
        lambda d, a: (max(d["llm_p_bears"], a["p_shown_bears_opposite"], a["p_bears"], a["p_bears_opposite"]),
                      d["llm_p_claim"]), 6),
    "the shipped gate, the direction read in context": (
        lambda d, a: (shown_or_opposite(d, a)[0], a["p_claim_context"]), 4),
    "the shipped gate, the direction of the shown sentences and the context averaged": (
        lambda d, a: (shown_or_opposite(d, a)[0], mean_of(d["llm_p_claim"], a["p_claim_context"])), 6),
    "the shipped gate, the more decided direction of the shown sentences and the context": (
        lambda d, a: (shown_or_opposite(d, a)[0], more_decided(d["llm_p_claim"], a["p_claim_context"])), 6),
}



# the judges whose direction hears the verifier's own P(claim) beside the LLM's (agent.judge.calibration)
VOTES = {"the same, with the verifier's vote in the direction"}


def report(answers: Path, out: Path, argv: list[str] | None) -> int:
    from agent.settings.app import get_settings

    rows = with_beside(study_rows(answers, "in_context"), answers, SHOWN, DIRECTION)
    if not rows:
        return 2
    docs = [d for r in rows for d in r["docs"]]
    gold = [d["gold"] is not None for d in docs]
    against = [d["gold"] == 1 for d in docs]
    aucs = partial(side_aucs, docs)
    evidence = [d for d in docs if d["gold"] is not None]
    res: dict[str, Any] = {
        **experiment_header("evals.studies.in_context", argv, "held-out SciFact train", []),
        "machine": cpu_name(),
        "claims": len(rows),
        "abstracts": len(docs),
        "evidence_abstracts": sum(gold),
        "contradicting_abstracts": sum(against),
        "abstracts_read_whole": sum(bool(d["answer"]["whole"]) for d in docs),
        "median_context_chars": int(np.median([d["answer"]["context_chars"] for d in docs])),
        "auc": {
            "verifier 1 - P(nei)": aucs(lambda d: d["bearing"]),
            "shown sentences: P(Yes)": aucs(lambda d: d["llm_p_bears"]),
            "in context: P(Yes)": aucs(lambda d: d["answer"]["p_bears"]),
            "in context: P(Yes), claim and opposite": aucs(
                lambda d: mean_of(d["answer"]["p_bears"], d["answer"]["p_bears_opposite"])),
            "shown sentences: P(Yes), claim and opposite": aucs(
                lambda d: mean_of(d["llm_p_bears"], d["answer"]["p_shown_bears_opposite"])),
            "shown sentences: P(Yes), claim and opposite, the higher": aucs(
                lambda d: max(d["llm_p_bears"], d["answer"]["p_shown_bears_opposite"])),
        },
        # the direction on SciFact's evidence alone: supporting against contradicting
        "direction_auc": {name: auc([p(d) for d in evidence], [d["gold"] == 0 for d in evidence]) for name, p in (
            ("shown sentences", lambda d: d["llm_p_claim"]),
            ("in context", lambda d: d["answer"]["p_claim_context"]),
            ("the two averaged", lambda d: mean_of(d["llm_p_claim"], d["answer"]["p_claim_context"])))},
        "median_seconds": {k: round(float(np.median([d["answer"]["seconds"][k] for d in docs])), 3)
                           for k in ("p_bears", "p_bears_opposite", "p_shown_bears", "p_shown_bears_opposite",
                                     "p_claim_context")},
        # the replay's shipped reading against the same question asked again here: the replay is reproducible
        "shown_p_bears_max_difference": round(max(abs(d["answer"]["p_shown_bears"] - d["llm_p_bears"])
                                                  for d in docs), 4),
        "judges": judges_compared(rows, JUDGES, get_settings().judge.min_confidence, VOTES),
    }
    write_experiment(out, "in_context", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The judge reading each paper in its context",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {res['claims']} held-out SciFact train "
        f"claims, {res['abstracts']} retrieved abstracts ({res['evidence_abstracts']} SciFact evidence, "
        f"{res['contradicting_abstracts']} of them contradicting). {res['abstracts_read_whole']} abstracts fit whole "
        f"in the context reading (median {res['median_context_chars']} characters). Each judge's gate, direction and "
        f"threshold are fitted on four folds of claims and label the fifth (target Label-Only precision "
        f"{TARGET_PRECISION}); every figure below is on the out-of-fold labels.",
        "",
        "## What a user sees: the verdict's side per held-out claim",
        "",
        "The verdict's side is the sign of the mean score of the papers that count (unweighted: the replay has no "
        "reputations).",
        "",
        "| judge | LLM calls per abstract | " + " | ".join(
            f"{g}: right / wrong / none" for g in GOLD_CLASSES) + " | right of settled | right when a side is "
        "taken | Label-Only P | R | F1 | bearing set: bears / partly / off-topic count |",
        "|---|---:|" + "---:|" * len(GOLD_CLASSES) + "---:|---:|---:|---:|---:|---|",
    ]
    for name, j in res["judges"].items():
        c, s, b = j["claims"], j["label_only"], j["bearing_set"]
        cells = [f"{'–' if g == 'NEI' else c[g]['right']} / {c[g]['wrong']} / {c[g]['none']}" for g in GOLD_CLASSES]
        counts = " · ".join(f"{k}/{n}" for k, n in (b["bears"], b["partly"], b["no"]))
        lines.append(f"| {name} | {j['llm_calls_per_abstract']} | " + " | ".join(cells)
                     + f" | {c['right_of_settled']} | {c['right_when_sided']} | {s['precision']} | {s['recall']} "
                     f"| {s['f1']} | {counts} |")
    lines += ["", "## Area under the ROC curve", "",
              "SciFact evidence against the rest, and each side's evidence against the abstracts that are not "
              "evidence.", "",
              "| reading | evidence | contradicting | supporting |", "|---|---:|---:|---:|"]
    for name, a in res["auc"].items():
        lines.append(f"| {name} | {a['evidence']} | {a['contradicting']} | {a['supporting']} |")
    lines += ["", "The direction's P(claim) on SciFact's evidence alone, supporting against contradicting (AUC): "
              + "; ".join(f"{k} {v}" for k, v in res["direction_auc"].items()) + "."]
    lines += ["", "Median seconds per call as `ask` recorded them (p_claim_context: both letter orders), each file "
              f"on the 2-core machine it was asked on; this report ran on: {res['machine']}: "
              + "; ".join(f"{k} {v}" for k, v in res["median_seconds"].items()) + ". The shown sentences asked "
              "of the claim again here differ from the replay's recorded answer by at most "
              f"{res['shown_p_bears_max_difference']} (P(Yes)).", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return ask_report_main(__doc__ or "", argv, ANSWERS, ask, report)


if __name__ == "__main__":
    sys.exit(main())
