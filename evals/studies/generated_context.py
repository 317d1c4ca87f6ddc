"""The generated supplementary context (agent.answer.supplement) measured on the judge's replay of held-out SciFact
train claims: what it costs, how often its abstract supports it, and whether the gate reads better with it.

    python -m evals.studies.generated_context ask [--limit N]     # contexts and the LLM's answers, resumable
    python -m evals.studies.generated_context report [--out evals/results]

For every replayed abstract ``ask`` has the LLM write the context of the shown sentences from the whole abstract, as
the product does after a check's answer, checks it against the abstract with the sentence verifier, and asks the
bearing question (prompts/bears.md) of the claim and of its opposite on the shown sentences with the context before
them (a dropped context: the sentences alone). The direction stays the replay's. ``report`` compares the judges by
folds of claims as evals/studies/in_context.py does, with the verdict's side per held-out claim, and says what the
context costs: seconds and tokens per abstract, and the share the check keeps.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import REPO_ROOT, cpu_name, experiment_header, write_experiment
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

ANSWERS = REPO_ROOT / "evals" / "results" / "generated_context" / "answers.jsonl"


def with_context(shown: str, context: str) -> str:
    """The shown sentences as the gate reads them with a generated context: the context first, as Contextual
    Retrieval prepends it to its chunk."""
    return f"The study (a context written from its abstract): {context}\n{shown}" if context else shown


class ContextReader:
    """The product's reading of the shown sentences (agent.judge.direction.evidence_text), and the context the LLM
    writes for them from the whole abstract, kept for the asker of the same abstract."""

    def __init__(self) -> None:
        self.last: dict[str, Any] = {}

    def __call__(self, deps: Any, doc_id: str, sentences: list[Any]) -> str:
        from agent.answer.supplement import supplement
        from agent.judge.direction import evidence_text

        shown = evidence_text(deps, doc_id, sentences)
        doc = deps.index.docs[doc_id]
        t0 = time.perf_counter()
        written = supplement(deps.llm, deps.answer_verifier, doc_id, doc.title, list(doc.sentences),
                             [ev.sentence_index for ev in sentences])
        self.last = {"context": written.text, "note": written.note,
                     "context_seconds": round(time.perf_counter() - t0, 3),
                     "context_prompt_tokens": written.usage.prompt_tokens,
                     "context_completion_tokens": written.usage.completion_tokens}
        return with_context(shown, written.text)


def read_with_context(reader: ContextReader, llm: Any, text: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """The bearing question of the claim and of its opposite on the shown sentences with their context."""
    from agent.judge.direction import bears

    answer: dict[str, Any] = {**reader.last, "seconds": {}}
    for key, statement in (("p_bears", row["text"]), ("p_bears_opposite", row["opposite"])):
        t0 = time.perf_counter()
        answer[key] = bears(llm, text, statement).p_bears
        answer["seconds"][key] = round(time.perf_counter() - t0, 3)
    return answer


def ask(limit: int | None, path: Path = ANSWERS) -> None:
    reader = ContextReader()
    ask_replay(limit, path, partial(read_with_context, reader), "generated context", reader=reader)


JUDGES: dict[str, tuple[Reading, int]] = {  # name: (reading, LLM calls per abstract)
    "shown sentences (shipped)": (lambda d, a: (d["llm_p_bears"], d["llm_p_claim"]), 3),
    "gate with the generated context": (lambda d, a: (a["p_bears"], d["llm_p_claim"]), 4),
    "gate with the generated context, asked of the claim and its opposite": (
        lambda d, a: (mean_of(a["p_bears"], a["p_bears_opposite"]), d["llm_p_claim"]), 5),
}


def report(answers: Path, out: Path, argv: list[str] | None) -> int:
    from agent.settings.app import get_settings

    rows = study_rows(answers, "generated_context")
    if not rows:
        return 2
    docs = [d for r in rows for d in r["docs"]]
    gold = [d["gold"] is not None for d in docs]
    aucs = partial(side_aucs, docs)
    answers_ = [d["answer"] for d in docs]
    res: dict[str, Any] = {
        **experiment_header("evals.studies.generated_context", argv, "held-out SciFact train", []),
        "machine": cpu_name(),
        "claims": len(rows),
        "abstracts": len(docs),
        "evidence_abstracts": sum(gold),
        "contradicting_abstracts": sum(d["gold"] == 1 for d in docs),
        "contexts_kept": sum(bool(a["context"]) for a in answers_),
        "dropped_examples": [a["note"] for a in answers_ if a["note"]][:5],
        "median_context_seconds": round(float(np.median([a["context_seconds"] for a in answers_])), 1),
        "median_context_tokens": [int(np.median([a["context_prompt_tokens"] for a in answers_])),
                                  int(np.median([a["context_completion_tokens"] for a in answers_]))],
        "median_bears_seconds": round(float(np.median([a["seconds"]["p_bears"] for a in answers_])), 2),
        "auc": {
            "verifier 1 - P(nei)": aucs(lambda d: d["bearing"]),
            "shown sentences: P(Yes)": aucs(lambda d: d["llm_p_bears"]),
            "with the generated context: P(Yes)": aucs(lambda d: d["answer"]["p_bears"]),
            "with the generated context: P(Yes), claim and opposite": aucs(
                lambda d: mean_of(d["answer"]["p_bears"], d["answer"]["p_bears_opposite"])),
        },
        "judges": {},
        "folds_note": "",
    }
    try:
        res["judges"] = judges_compared(rows, JUDGES, get_settings().judge.min_confidence)
    except ValueError as e:  # a fold whose four training folds hold one class only: too few claims asked yet
        res["folds_note"] = (f"Too few claims answered yet to fit a judge on four folds and label the fifth "
                             f"({e}); run `ask` on more claims.")
    write_experiment(out, "generated_context", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    t_in, t_out = res["median_context_tokens"]
    lines = [
        "# The generated supplementary context, measured on the judge's replay",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {res['claims']} held-out SciFact train "
        f"claims, {res['abstracts']} retrieved abstracts ({res['evidence_abstracts']} SciFact evidence, "
        f"{res['contradicting_abstracts']} of them contradicting), asked on a 2-core {res['machine']}.",
        "",
        "## What it costs and how often its abstract supports it",
        "",
        f"- The check kept {res['contexts_kept']} of {res['abstracts']} contexts (each sentence supported by the "
        "abstract, read by the sentence verifier); the rest were dropped with the reason.",
        f"- Median {res['median_context_seconds']} s per context ({t_in} prompt tokens: the whole abstract; "
        f"{t_out} written); a bearing question with it: {res['median_bears_seconds']} s.",
        "",
        "Reasons of the first dropped contexts:",
        "",
        *[f"- {n}" for n in res["dropped_examples"]],
        "",
        "## What a user sees: the verdict's side per held-out claim",
        "",
        f"Each judge's gate, direction and threshold are fitted on four folds of claims and label the fifth (target "
        f"Label-Only precision {TARGET_PRECISION}). The verdict's side is the sign of the mean score of the papers "
        "that count.",
        "",
    ]
    if res["folds_note"]:
        lines.append(res["folds_note"])
    else:
        lines += ["| judge | LLM calls per abstract | " + " | ".join(
            f"{g}: right / wrong / none" for g in GOLD_CLASSES) + " | right of settled | right when a side is "
            "taken | Label-Only P | R | F1 |", "|---|---:|" + "---:|" * len(GOLD_CLASSES) + "---:|---:|---:|---:|---:|"]
    for name, j in res["judges"].items():
        c, s = j["claims"], j["label_only"]
        cells = [f"{'–' if g == 'NEI' else c[g]['right']} / {c[g]['wrong']} / {c[g]['none']}" for g in GOLD_CLASSES]
        lines.append(f"| {name} | {j['llm_calls_per_abstract']} | " + " | ".join(cells)
                     + f" | {c['right_of_settled']} | {c['right_when_sided']} | {s['precision']} | {s['recall']} "
                     f"| {s['f1']} |")
    lines += ["", "## Area under the ROC curve", "",
              "SciFact evidence against the rest, and each side's evidence against the abstracts that are not "
              "evidence (– where the sample holds none).", "",
              "| reading | evidence | contradicting | supporting |", "|---|---:|---:|---:|"]
    for name, a in res["auc"].items():
        cells = ["–" if a[k] is None else str(a[k]) for k in ("evidence", "contradicting", "supporting")]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return ask_report_main(__doc__ or "", argv, ANSWERS, ask, report)


if __name__ == "__main__":
    sys.exit(main())
