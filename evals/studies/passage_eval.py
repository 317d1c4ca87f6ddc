"""Claim extraction and the citation audit, measured on the hand labels of evals/passages (its README holds the
rules the labels follow, written before the rules of tools.text.claim_rules were tuned on the train file).

    python -m evals.studies.passage_eval --split dev             # extraction: precision and recall per sentence
    python -m evals.studies.passage_eval --split dev --llm       # ... with the LLM resolving references back
    python -m evals.studies.passage_eval --audit                 # the citation audit on the 10 cited passages

Extraction reads each labelled abstract as one passage (its sentences joined by spaces), exactly as a paste is
read: the product's sentence splitter, then its rules. A predicted claim counts for the labelled sentence its span
overlaps most. "Stands alone" is the share of extracted claims with no word pointing back into the passage
(tools.text.claim_rules.unresolved). The audit adds `cited_library.bib` to a copy of the local index as a user's library
would be, extracts each passage's claims and audits each citation (agent.passage.audit), and compares the outcome
with the SciFact label of the cited paper for that claim."""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.passage.extract import extract
from evals.experiments import git_commit
from tools.text.claim_rules import unresolved
from tools.text.passage import read_passage

LABELS = Path(__file__).resolve().parents[1] / "passages"
RESULTS = Path(__file__).resolve().parents[1] / "results"


def load(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (LABELS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _closest(start: int, end: int, spans: list[tuple[int, int]]) -> int:
    """The labelled sentence a predicted span overlaps most."""
    overlap = [max(0, min(end, e) - max(start, b)) for b, e in spans]
    return overlap.index(max(overlap))


def extraction(split: str, llm: Any = None) -> dict[str, Any]:
    """Per-sentence precision, recall and F1 of `checkable`, the share of claims that stand alone, and the
    reasons given for the checkable sentences the rules skipped."""
    tp = fp = fn = tn = 0
    standalone: list[bool] = []
    missed_why: Counter[str] = Counter()
    false_why: Counter[str] = Counter()
    usage_calls = 0
    for doc in load(f"sentences_{split}.jsonl"):
        gold = doc["sentences"]
        text, spans, at = "", [], 0
        for s in gold:
            spans.append((at, at + len(s["text"])))
            text += s["text"] + " "
            at = len(text)
        claims, skipped, usage, _ = extract(read_passage(text), llm)
        usage_calls += usage.calls
        picked = [False] * len(gold)
        for c in claims:
            picked[_closest(c.start, c.end, spans)] = True
            standalone.append(unresolved(c.claim) is None)
        why = {_closest(s.start, s.end, spans): s.reason for s in skipped}
        for i, s in enumerate(gold):
            if s["checkable"] and picked[i]:
                tp += 1
            elif picked[i]:
                fp += 1
                false_why[s.get("why", "")[:40]] += 1
            elif s["checkable"]:
                fn += 1
                missed_why[why.get(i, "(merged into another sentence)")] += 1
            else:
                tn += 1
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {
        "split": split,
        "sentences": tp + fp + fn + tn,
        "checkable": tp + fn,
        "precision": round(p, 3),
        "recall": round(r, 3),
        "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0,
        "accuracy": round((tp + tn) / (tp + fp + fn + tn), 3),
        "claims": len(standalone),
        "stand_alone": round(sum(standalone) / len(standalone), 3) if standalone else None,
        "llm_calls": usage_calls,
        "missed_because": dict(missed_why.most_common()),
        "false_picks_labelled": dict(false_why.most_common(12)),
    }


def audit(deps: Any) -> dict[str, Any]:
    """The citation audit on the cited passages, against the SciFact label of each cited paper."""
    from agent.passage.audit import audit_claim

    rows, t0 = [], time.perf_counter()
    for passage in load("cited_passages.jsonl"):
        parsed = read_passage(passage["text"])
        claims, _, _, _ = extract(parsed, deps.llm)
        gold = {s["text"]: s for s in passage["sentences"] if s["cites"]}
        for claim in claims:
            g = gold.get(claim.sentence)
            for a in audit_claim(claim, parsed, deps):
                rows.append({"passage": passage["id"], "gold": g["gold"] if g else None, "outcome": a.outcome,
                             "matched": a.doc_id is not None, "citation": a.citation})  # fmt: skip
    wanted = {"SUPPORT": "supports", "CONTRADICT": "contradicts"}
    judged = [r for r in rows if r["gold"]]
    return {
        "citations": len(rows),
        "gold_citations": sum(1 for p in load("cited_passages.jsonl") for s in p["sentences"] if s["cites"]),
        "matched": sum(r["matched"] for r in rows),
        "agree": sum(wanted[r["gold"]] == r["outcome"] for r in judged),
        "judged": len(judged),
        "confusion": dict(Counter(f"{r['gold']} -> {r['outcome']}" for r in judged)),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def audit_deps(tmp: Path) -> Any:
    """The product's dependencies over a copy of the local index with `cited_library.bib` added as a library."""
    from agent.service import load_deps
    from agent.settings.app import get_settings
    from tools.documents.library import add_to_library, plan
    from tools.index.local import CorpusIndex

    settings = get_settings()
    shutil.copytree(settings.stores.index_dir, tmp / "index")
    deps = load_deps(settings)
    deps.index = CorpusIndex(tmp / "index")
    items, problems = plan([LABELS / "cited_library.bib"])
    add_to_library(deps.index, items, problems)
    return deps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("train", "dev"), default="dev")
    ap.add_argument("--llm", action="store_true", help="let the embedded LLM resolve references back")
    ap.add_argument("--audit", action="store_true", help="measure the citation audit instead")
    ap.add_argument("--out", type=Path, help="result stem (default evals/results/passage_<what>)")
    args = ap.parse_args(argv)
    if args.audit:
        with tempfile.TemporaryDirectory() as tmp:
            result = audit(audit_deps(Path(tmp)))
        stem = args.out or RESULTS / "passage_audit"
    else:
        llm = None
        if args.llm:
            from agent.llm.client import make_chat_model
            from agent.settings.app import get_settings

            llm = make_chat_model(get_settings())
        result = extraction(args.split, llm)
        stem = args.out or RESULTS / f"passage_extraction_{args.split}{'_llm' if args.llm else ''}"
    command = "python -m evals.studies.passage_eval " + shlex.join(sys.argv[1:] if argv is None else argv)
    record = {"command": command, "date": datetime.now(UTC).isoformat(timespec="seconds"), "commit": git_commit(),
              **result}  # fmt: skip
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
