"""What do the current verify and correct rules change in the answers a full run showed?

The shown answers are checked again with the verify and correct nodes as they are now, without the LLM.

    python -m evals.studies.recheck --replay evals/results/scifact_dev_full.predictions.jsonl.gz

For every recorded claim with evidence, the answer sentences the run showed (after its own self-correction) go
through verify -> correct again on the recorded evidence. No LLM is called: a flagged sentence is re-cited to the
source whose words it repeats, replaced by its quoted finding or dropped, never rewritten. What this measures is
what a change to the checking rules does to answers users were shown: how many shown sentences the current rules
flag and why, what correction does with them, and the faithfulness block (evals.scifact.metrics) before and after.
It is not a fresh run: a new rule can also change the first answer's corrections, which only a full run measures.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.experiments import experiment_header, write_experiment
from evals.scifact.data import RESULTS_DIR
from evals.scifact.metrics import answer_faithfulness
from evals.scifact.records import replay_records

NO_LLM = "recheck: no LLM is called"


def recheck(result: Mapping[str, Any], deps: Any) -> dict[str, Any]:
    """One recorded answer as shown, verified and corrected again; the result JSON as the product would give it."""
    from agent import stages
    from agent.result import CheckResult
    from agent.state import AnswerSentence, ClaimState

    recorded = CheckResult.model_validate(result)
    shown = [AnswerSentence(text=s.text, citations=s.citations) for s in recorded.sentences]
    state: ClaimState = {
        "claim": recorded.claim,
        "evidence": list(recorded.sources),
        "assessments": list(recorded.assessments),
        "summary": recorded.summary,
        "sentences": shown,
        "answer": recorded.answer,
        "llm_error": NO_LLM,
    }
    if recorded.verdict is not None:
        state["verdict"] = recorded.verdict
    out = stages.verification(state, deps)
    rechecked = recorded.model_copy(
        update={"sentences": out["sentences"], "corrections": out.get("corrections", []), "answer": out["answer"]}
    )
    return rechecked.model_dump(mode="json")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", type=Path, required=True, help="full-run predictions file")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    p.add_argument("--name", default="recheck_dev_full", help="output name (<out>/<name>.json, .md)")
    args = p.parse_args(argv)

    from agent.llm.scripted import ScriptedChatModel
    from agent.settings.app import get_settings
    from agent.state import Deps
    from tools.models.verifier import get_verifier

    records = [r for r in replay_records(args.replay) if r["result"]["sources"]]
    # verify and correct need the verifier alone: no index, and a chat model that is never called (llm_error is set)
    deps = Deps(settings=get_settings(), llm=ScriptedChatModel(rules=[]), index=None, verifier=get_verifier())  # type: ignore[arg-type]
    before = [r["result"] for r in records]
    after = [recheck(r, deps) for r in before]
    reasons: Counter[str] = Counter()
    for checked in after:
        for c in checked["corrections"]:
            reasons[c["reason"].split("; ")[0]] += 1
    res: dict[str, Any] = {
        **experiment_header("evals.studies.recheck", argv, "dev", []),
        "replay": str(args.replay),
        "claims": len(records),
        "shown_sentences": sum(len(r["sentences"]) for r in before),
        "flagged_now": sum(len(r["corrections"]) for r in after),
        "flag_reasons": dict(reasons.most_common()),
        "answers_changed": sum(bool(r["corrections"]) for r in after),
        "before": answer_faithfulness(before),
        "after": answer_faithfulness(after),
        "changes": [
            {"id": rec["id"], "corrections": r["corrections"]}
            for rec, r in zip(records, after, strict=True)
            if r["corrections"]
        ],
    }
    del res["claims_with_evidence"]
    write_experiment(args.out, args.name, res, markdown)
    return 0


KEYS = ("attributable_rate", "independent_support_rate", "answers_with_copies", "corrections")


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        f"# Re-checking the answers a full run showed ({res['claims']} SciFact dev claims with evidence)",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. Replayed `{res['replay']}`: the shown "
        "sentences verified and corrected again with the current rules, no LLM (a flagged sentence is re-cited, "
        "replaced by its quoted finding or dropped).",
        "",
        f"Shown sentences: {res['shown_sentences']}; flagged by the current rules: {res['flagged_now']} in "
        f"{res['answers_changed']} answers. Why: {res['flag_reasons']}.",
        "",
        "| | " + " | ".join(k.replace("_", " ") for k in KEYS) + " |",
        "|---|" + "---:|" * len(KEYS),
    ]
    caption = "Corrections: the run's own self-correction (before) and this re-check's (after)."
    for when in ("before", "after"):
        m = res[when]
        cells = [str(m[k]) if isinstance(m[k], dict) else f"{m[k]:.3f}" for k in KEYS]
        lines.append(f"| {when} | " + " | ".join(cells) + " |")
    lines += ["", caption, "", "Changes (claim id: action, the sentence as shown before -> now):", ""]
    for row in res["changes"]:
        for c in row["corrections"]:
            now = f"“{c['text']}”" if c["text"] else "not shown"
            lines.append(f"- {row['id']}: **{c['action']}** ({c['reason']}) “{c['original']}” -> {now}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
