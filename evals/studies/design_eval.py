"""How well does tools/documents/design.py name the study design of real SciFact abstracts?

Measured against the hand labels in evals/design_labels (README.md there gives the classes and the decision rules).

Per-class precision, recall, F1 and support, accuracy, macro-F1 and a confusion table, for the shipped classifier
and, in the same run, a majority-class baseline (every abstract gets the most frequent label of the split).
train is the tuning split; dev is the reported figure.

    python -m evals.studies.design_eval --split dev --out evals/results
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, git_commit, write_experiment
from tools.corpus import iter_corpus
from tools.documents.design import DESIGNS, classify

LABELS_DIR = REPO_ROOT / "evals" / "design_labels"
CORPUS = REPO_ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"
SPLITS = ("train", "dev")
SHORT = {"meta_analysis": "meta", "cross_sectional": "x-sec", "case_control": "c-c", "case_report": "c-rep",
         "narrative_review": "review", "unclassified": "uncl", "in_vitro": "in vitro"}  # fmt: skip


def load_labels(path: Path) -> list[dict[str, str]]:
    """The label file's records; an unknown design or a repeated doc id is an error, not a skipped line."""
    labels: list[dict[str, str]] = []
    seen: set[str] = set()
    for line_no, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        rec = json.loads(line)
        doc_id, design = str(rec["doc_id"]), str(rec["design"])
        if design not in DESIGNS:
            raise ValueError(f"{path.name}:{line_no}: unknown design {design!r}")
        if doc_id in seen:
            raise ValueError(f"{path.name}:{line_no}: doc_id {doc_id} labelled twice")
        seen.add(doc_id)
        labels.append({"doc_id": doc_id, "design": design, "note": str(rec.get("note", ""))})
    return labels


def scores(gold: Sequence[str], pred: Sequence[str]) -> dict[str, Any]:
    """Per-class precision / recall / F1 / support, accuracy and macro-F1.

    Macro-F1 averages F1 over every class that is in the labels or among the predictions (scikit-learn's
    convention), so predicting a class the labels never use costs F1. A class with nothing predicted has
    precision 0; a class with no support has recall 0."""
    if len(gold) != len(pred) or not gold:
        raise ValueError("gold and pred must be non-empty and of equal length")
    classes = [c for c in DESIGNS if c in set(gold) | set(pred)]
    per_class: dict[str, dict[str, float | int]] = {}
    for c in classes:
        tp = sum(g == c and p == c for g, p in zip(gold, pred, strict=True))
        n_pred, support = sum(p == c for p in pred), sum(g == c for g in gold)
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[c] = {"precision": precision, "recall": recall, "f1": f1, "support": support, "predicted": n_pred}
    accuracy = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold)
    macro_f1 = sum(float(m["f1"]) for m in per_class.values()) / len(per_class)
    return {"accuracy": accuracy, "macro_f1": macro_f1, "n": len(gold), "per_class": per_class}


def confusion(gold: Sequence[str], pred: Sequence[str]) -> dict[str, dict[str, int]]:
    """counts[gold][predicted] over the classes that occur on either side, in DESIGNS order."""
    classes = [c for c in DESIGNS if c in set(gold) | set(pred)]
    counts = Counter(zip(gold, pred, strict=True))
    return {g: {p: counts[(g, p)] for p in classes} for g in classes}


def majority(gold: Sequence[str]) -> str:
    """The most frequent label; ties go to the class listed first in DESIGNS."""
    counts = Counter(gold)
    return max(DESIGNS, key=lambda c: (counts[c], -DESIGNS.index(c)))


def evaluate(labels: Sequence[Mapping[str, str]], corpus: Path) -> dict[str, Any]:
    """The classifier and the majority baseline on the labelled abstracts of ``corpus``."""
    wanted = {rec["doc_id"] for rec in labels}
    docs = {d.doc_id: d for d in iter_corpus(corpus) if d.doc_id in wanted}
    missing = sorted(wanted - set(docs))
    if missing:
        raise SystemExit(f"{len(missing)} labelled doc ids are not in {corpus}: {missing[:5]}")
    gold = [rec["design"] for rec in labels]
    calls = [classify(docs[rec["doc_id"]]) for rec in labels]
    pred = [c.design for c in calls]
    base = majority(gold)
    errors = [
        {"doc_id": rec["doc_id"], "gold": g, "pred": c.design, "basis": c.basis, "cue": c.cue}
        for rec, g, c in zip(labels, gold, calls, strict=True)
        if g != c.design
    ]
    return {
        "classifier": scores(gold, pred),
        "majority_baseline": {"predicts": base, **scores(gold, [base] * len(gold))},
        "confusion": confusion(gold, pred),
        "basis": dict(Counter(c.basis for c in calls)),
        "errors": errors,
    }


def markdown(res: Mapping[str, Any]) -> str:
    clf, base = res["classifier"], res["majority_baseline"]
    lines = [
        f"# Study-design classifier (tools/documents/design.py) on SciFact {res['split']} hand labels "
        f"({res['n']} abstracts)",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. Labels: `{res['labels']}` "
        "(classes and decision rules in evals/design_labels/README.md). "
        + (
            "Tuning split: the rules were written against these labels."
            if res["split"] == "train"
            else "Reported split: no rule was written or ordered by looking at these labels."
        ),
        "",
        "| | accuracy | macro-F1 |",
        "|---|---:|---:|",
        f"| classifier | {clf['accuracy']:.3f} | {clf['macro_f1']:.3f} |",
        f"| majority baseline (always `{base['predicts']}`) | {base['accuracy']:.3f} | {base['macro_f1']:.3f} |",
        "",
        "Macro-F1 averages over the classes in the labels or the predictions. What decided each call: "
        + ", ".join(f"{k} {v}" for k, v in sorted(res["basis"].items()))
        + ".",
        "",
        "| class | support | predicted | precision | recall | F1 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for c, m in clf["per_class"].items():
        lines.append(
            f"| {c} | {m['support']} | {m['predicted']} | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} |"
        )
    classes = list(res["confusion"])
    lines += ["", "Confusion (rows: hand label, columns: classifier):", ""]
    lines.append("| label \\ predicted | " + " | ".join(SHORT.get(c, c) for c in classes) + " |")
    lines.append("|---|" + "---:|" * len(classes))
    for g, row in res["confusion"].items():
        lines.append(f"| {g} | " + " | ".join(str(row[p]) if row[p] else "·" for p in classes) + " |")
    lines += [
        "",
        f"{len(res['errors'])} abstracts are misclassified; the JSON lists each with the cue that decided it.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=SPLITS, default="dev")
    ap.add_argument(
        "--labels", type=Path, default=None, help="label file (default evals/design_labels/scifact_<split>.jsonl)"
    )
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="SciFact corpus.jsonl")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = ap.parse_args(argv)
    labels_path = args.labels or LABELS_DIR / f"scifact_{args.split}.jsonl"
    if not args.corpus.is_file():
        raise SystemExit(f"SciFact corpus not found at {args.corpus}; pass --corpus")
    labels = load_labels(labels_path)
    res: dict[str, Any] = {
        "command": "python -m evals.studies.design_eval " + shlex.join(sys.argv[1:] if argv is None else argv),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "split": args.split,
        "labels": labels_path.relative_to(REPO_ROOT).as_posix()
        if labels_path.is_relative_to(REPO_ROOT)
        else str(labels_path),
        "n": len(labels),
        **evaluate(labels, args.corpus),
    }
    write_experiment(args.out, f"design_classifier_{args.split}", res, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
