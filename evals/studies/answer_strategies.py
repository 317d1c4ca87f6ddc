"""Which answer strategy gives the best-supported answers on the same evidence?

For each recorded claim of a full run, the answer stage of every strategy (agent.answer.strategies) is replayed on the
evidence and verdict that run recorded (no retrieval), then verified and self-corrected as the product does.

    python -m evals.studies.answer_strategies --replay evals/results/scifact_dev_full.predictions.jsonl.gz --claims 100

Per strategy, before self-correction (the draft) and as shown: the share of sentences supported by the verifier;
as shown, also the reading of every shown sentence by the verifier of answer sentences and by the claim verifier (a
quote included, which the product counts as supported by the quote) and an independent check that does not use the
verifier (content-word support, evals/scifact/answer_checks.py); citation validity of what the model wrote; the
share of answers with a copied title, a restated claim or copied prompt text; completion tokens, LLM calls and
seconds per claim (answer, verify and correct). The LLM is the configured one (the embedded model by default) at
temperature 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.answer.compose import QUOTED
from evals.experiments import experiment_header, write_experiment
from evals.scifact.answer_checks import SUPPORT_SHARE, check_answer, only_copied
from evals.scifact.data import RESULTS_DIR
from evals.scifact.metrics import faithfulness_metrics
from evals.scifact.records import replay_records

STRATEGIES = ("abstractive", "per_paper", "extractive", "hybrid")


def replay(record: Mapping[str, Any], deps: Any) -> dict[str, Any]:
    """One strategy on one record: the draft as verified, what is shown after self-correction, and the cost."""
    from agent import stages
    from agent.result import CheckResult
    from agent.state import ClaimState

    recorded = CheckResult.model_validate(record["result"])
    state: ClaimState = {
        "claim": recorded.claim,
        "evidence": list(recorded.sources),
        "assessments": list(recorded.assessments),
        "silent": list(recorded.silent),
    }
    if recorded.verdict is not None:
        state["verdict"] = recorded.verdict
    t0 = time.perf_counter()
    draft = stages.run_span(state, deps, "answer", "verify")
    final = stages.run_span(draft, deps, "correct", "correct")
    seconds = time.perf_counter() - t0
    usage = final.get("usage")
    return {
        "id": record["id"],
        "draft": [s.model_dump(mode="json") for s in draft.get("sentences", [])],
        "shown": [s.model_dump(mode="json") for s in final.get("sentences", [])],
        "answer": final.get("answer", ""),
        "verdict": recorded.verdict.label if recorded.verdict else "",
        "corrections": [c.action for c in final.get("corrections", [])],
        "completion_tokens": usage.completion_tokens if usage else 0,
        "calls": usage.calls if usage else 0,
        "seconds": round(seconds, 2),
    }


def verifier_reads(rows: Sequence[Mapping[str, Any]], records: Mapping[int, Any], verifier: Any) -> list[bool]:
    """For every shown sentence, whether the verifier itself finds a cited source supporting it."""
    from agent.judge.sources import premise

    pairs, owner = [], []
    shown = [(row["id"], s) for row in rows for s in row["shown"]]
    for k, (rid, s) in enumerate(shown):
        for ev in records[rid].sources:
            if ev.n in s["citations"]:
                pairs.append((s["text"], premise(ev)))
                owner.append(k)
    found = [False] * len(shown)
    for k, res in zip(owner, verifier.predict(pairs), strict=True):
        found[k] = found[k] or res.label == "supports"
    return found


def measure(
    rows: Sequence[Mapping[str, Any]], records: Mapping[int, Any], verifier: Any, claim_verifier: Any = None
) -> dict[str, Any]:
    """The figures of one strategy; ``verifier`` reads answer sentences (the product's sentence verifier), and
    ``claim_verifier``, when given, reads them too for comparison with runs before the sentence verifier."""
    drafts = [s for row in rows for s in row["draft"]]
    shown = [s for row in rows for s in row["shown"]]
    independent: list[bool] = []
    problems: Counter[str] = Counter()
    for row in rows:
        rec = records[row["id"]]
        sources = [ev.model_dump(include={"n", "sentence", "title"}) for ev in rec.sources]
        supported, found = check_answer(rec.claim, sources, row["shown"])
        independent += supported
        problems.update({k: 1 for k, v in found.items() if v})
        problems["any"] += any(found.values())
    n = max(1, len(rows))
    reads = verifier_reads(rows, records, verifier)
    claim_reads = verifier_reads(rows, records, claim_verifier) if claim_verifier is not None else []
    draft_rates = faithfulness_metrics(drafts)
    return {
        "claims": len(rows),
        "draft_sentences": len(drafts),
        "draft_supported": draft_rates["attributable_rate"],
        "citation_validity": draft_rates["citation_validity"],
        "shown_sentences": len(shown),
        "shown_supported": faithfulness_metrics(shown)["attributable_rate"],
        "shown_supported_by_verifier_alone": round(sum(reads) / len(reads), 4) if reads else None,
        "shown_supported_by_claim_verifier": round(sum(claim_reads) / len(claim_reads), 4) if claim_reads else None,
        "shown_supported_independent": round(sum(independent) / len(independent), 4) if independent else None,
        "answers_copying_a_title": round(problems["title"] / n, 4),
        "answers_restating_the_claim": round(problems["claim"] / n, 4),
        "answers_copying_prompt_text": round(problems["prompt"] / n, 4),
        "answers_with_any_copy": round(problems["any"] / n, 4),
        "corrections": dict(Counter(a for row in rows for a in row["corrections"])),
        # draft sentences the verifier passed that the LLM's reading of direction flagged
        # (agent.answer.sentence_direction)
        "read_the_other_way": sum("reads the other way" in str(d.get("reason", "")) for d in drafts),
        "completion_tokens_per_claim": round(sum(r["completion_tokens"] for r in rows) / n, 1),
        "llm_calls_per_claim": round(sum(r["calls"] for r in rows) / n, 2),
        "seconds_per_claim": round(sum(r["seconds"] for r in rows) / n, 2),
        **answer_shape(rows, records),
    }


def answer_shape(rows: Sequence[Mapping[str, Any]], records: Mapping[int, Any]) -> dict[str, Any]:
    """Share of answers whose first words are the verdict's label, share made only of copied passages (quotes and
    near copies), share made only of quotes (the extractive template: self-correction's replacements), and the
    median and p95 seconds of the answer stages (answer, verify, correct). Rows of an older run without the answer
    text or the verdict count as not stating it first."""
    n = max(1, len(rows))
    seconds = sorted(r["seconds"] for r in rows)
    first = sum(bool(r.get("verdict")) and str(r.get("answer", "")).startswith(r["verdict"]) for r in rows)
    copied = sum(
        only_copied([s["text"] for s in r["shown"]], [ev.sentence for ev in records[r["id"]].sources]) for r in rows
    )
    quoted = sum(bool(r["shown"]) and all(QUOTED.match(s["text"]) for s in r["shown"]) for r in rows)
    return {
        "verdict_first": round(first / n, 4),
        "only_copied_passages": round(copied / n, 4),
        "only_quotes": round(quoted / n, 4),
        "answer_seconds_median": seconds[len(seconds) // 2] if seconds else None,
        "answer_seconds_p95": seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))] if seconds else None,
    }


COLUMNS = (
    ("draft supported", "draft_supported"),
    ("citation validity", "citation_validity"),
    ("shown supported", "shown_supported"),
    ("shown, verifier alone", "shown_supported_by_verifier_alone"),
    ("shown, claim verifier", "shown_supported_by_claim_verifier"),
    ("shown, independent", "shown_supported_independent"),
    ("answers: title", "answers_copying_a_title"),
    ("restated claim", "answers_restating_the_claim"),
    ("prompt text", "answers_copying_prompt_text"),
    ("completion tokens", "completion_tokens_per_claim"),
    ("LLM calls", "llm_calls_per_claim"),
    ("s / claim", "seconds_per_claim"),
    ("s median", "answer_seconds_median"),
    ("s p95", "answer_seconds_p95"),
    ("verdict first", "verdict_first"),
    ("only copied passages", "only_copied_passages"),
    ("only quotes", "only_quotes"),
    ("read the other way (LLM)", "read_the_other_way"),
)


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        f"# Answer strategies on the same evidence ({res['claims']} SciFact dev claims)",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. Replayed `{res['replay']}`; "
        f"LLM {res['llm']}; {res['llm_tokens_per_s']} completion tokens per second of the replayed stages (answer, "
        "verify, correct) in this run, a floor on the LLM's own decode rate.",
        "",
        "Draft = the strategy's sentences as verified; shown = after self-correction. Supported = status supported "
        "(a quote of the cited source counts, by the quote); verifier alone = the verifier of answer sentences itself "
        "finds a cited source supporting it (claim verifier: the verdict's verifier reads it so); independent = at "
        f"least {SUPPORT_SHARE:.0%} of its content words are in what it cites. Answers: share of answers with a "
        "shown sentence that copies a title, restates the claim or copies prompt text.",
        "",
        "| strategy | " + " | ".join(c for c, _ in COLUMNS) + " | corrections |",
        "|---|" + "---:|" * len(COLUMNS) + "---|",
    ]
    for name, m in res["strategies"].items():
        cells = ["-" if m[k] is None else f"{m[k]:.3f}".rstrip("0").rstrip(".") for _, k in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {m['corrections']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", type=Path, required=True, help="full-run predictions file")
    p.add_argument("--claims", type=int, default=100, help="the first N recorded claims that have evidence")
    p.add_argument("--strategies", nargs="+", choices=STRATEGIES, default=list(STRATEGIES))
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)

    from agent.result import CheckResult
    from agent.service import load_deps
    from agent.settings.app import get_settings
    from agent.state import Deps, numbered
    from evals.scifact.records import llm_name

    chosen = [r for r in replay_records(args.replay) if r["result"]["sources"]][: args.claims]
    # numbered by paper, as the product numbers its sources now (agent.state.numbered)
    records = {r["id"]: CheckResult.model_validate(r["result"]) for r in chosen}
    for r in chosen:
        record = records[r["id"]]
        papers = numbered(record.sources)
        record.sources = [s.model_copy(update={"n": p.n}) for s, p in zip(record.sources, papers, strict=True)]
        r["result"] = record.model_dump(mode="json")
    base = load_deps(get_settings())
    res: dict[str, Any] = {
        **experiment_header("evals.studies.answer_strategies", argv, "dev", []),
        "replay": str(args.replay),
        "claims": len(chosen),
        "ids": [r["id"] for r in chosen],
        "llm": llm_name(base.settings),
        "strategies": {},
        "answers": {},
    }
    tokens, llm_seconds = 0, 0.0
    for name in args.strategies:
        settings = base.settings.with_values(answer={"strategy": name})
        deps = Deps(settings, base.llm, base.index, base.verifier, base.sentence_verifier)
        rows = [replay(r, deps) for r in chosen]
        res["strategies"][name] = measure(rows, records, base.answer_verifier, base.verifier)
        res["answers"][name] = [
            {"id": r["id"], "answer": r["answer"], "shown": [s["text"] for s in r["shown"]],
             "draft": [{k: s[k] for k in ("text", "citations", "status", "reason")} for s in r["draft"]]}
            for r in rows
        ]
        if name != "extractive":
            tokens += sum(r["completion_tokens"] for r in rows)
            llm_seconds += sum(r["seconds"] for r in rows)
        print(name, res["strategies"][name], flush=True)
    del res["claims_with_evidence"]
    res["llm_tokens_per_s"] = round(tokens / llm_seconds, 1) if llm_seconds else None
    write_experiment(args.out, "answer_strategies", res, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
