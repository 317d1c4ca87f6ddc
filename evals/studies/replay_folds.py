"""What the judge studies share: asking the LLM one more question about every abstract of the judge's replay of
held-out SciFact train claims (evals/training/bearing_replay.py), resumably, and comparing judges by folds of claims
(each judge's gate, direction and threshold fitted on four folds, as evals/training/judge_calibration.py fits the
shipped one, labelling the fifth), with the share of the bearing set's papers that count (evals/bearing_set)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agent.judge.calibration import logit
from evals.experiments import REPO_ROOT
from evals.training.bearing_replay import REPLAY, read_replay
from evals.training.replay_readings import read_answers

FOLDS = 5


TARGET_PRECISION = 0.65


Asker = Callable[[Any, Any, Mapping[str, Any]], dict[str, Any]]  # (LLM, evidence as read, replay row) -> answer


def ask_replay(limit: int | None, path: Path, asker: Asker, what: str, reader: Any = None) -> None:
    """``asker``'s answer for every abstract of the judge's replay that ``path`` does not hold yet, each read as the
    product shows it to the LLM (``reader``, by default agent.judge.direction.evidence_text, of the recorded
    sentences), appended to ``path`` as it comes (an interrupted run resumes)."""
    from agent.judge.direction import evidence_text
    from agent.service import load_deps
    from agent.settings.app import get_settings
    from agent.state import Evidence

    rows = read_replay(REPLAY)[:limit]
    done = {a["pair"] for a in read_answers(path)}
    todo = [(r, d) for r in rows for d in r["docs"] if f"{r['claim']}:{d['doc_id']}" not in done]
    if not todo:
        return
    deps = load_deps(get_settings().with_values(live={"sources": "local"}))
    path.parent.mkdir(parents=True, exist_ok=True)
    for k, (row, d) in enumerate(todo, start=1):
        sentences = [Evidence(n=i + 1, doc_id=d["doc_id"], title=d["title"], sentence=s, sentence_index=idx)
                     for i, (idx, s) in enumerate(d["sentences"])]
        t0 = time.perf_counter()
        answer = {"pair": f"{row['claim']}:{d['doc_id']}",
                  **asker(deps.llm, (reader or evidence_text)(deps, d["doc_id"], sentences), row)}
        with path.open("a") as fh:
            fh.write(json.dumps(answer) + "\n")
        print(f"{what}: {k}/{len(todo)} abstracts ({time.perf_counter() - t0:.1f} s)", flush=True)


def ask_report_main(doc: str, argv: list[str] | None, answers: Path, ask: Callable[[int | None, Path], None],
                    report: Callable[[Path, Path, list[str] | None], int]) -> int:
    """The command line of a study that asks the LLM over the replay (``ask``) and reports (``report``)."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("ask", help="the LLM's answers for every replayed abstract (resumable)")
    a.add_argument("--limit", type=int, default=None, help="only the first N replayed claims")
    a.add_argument("--answers", type=Path, default=answers)
    r = sub.add_parser("report", help="the judges side by side")
    r.add_argument("--answers", type=Path, default=answers)
    r.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    if args.command == "ask":
        ask(args.limit, args.answers)
        return 0
    return report(args.answers, args.out, argv)


def study_rows(answers: Path, study: str) -> list[dict[str, Any]]:
    """``joined`` for a study's report; when nothing is answered yet, it says which command asks, and is empty."""
    rows = joined(answers)
    if not rows:
        print(f"no answers at {answers}: run python -m evals.studies.{study} ask first", file=sys.stderr)
    return rows


# a judge's reading of one replayed abstract: (its gate signal, its P(claim)) from the abstract and its answer
Reading = Callable[[Mapping[str, Any], Mapping[str, Any]], tuple[float, float]]


def joined(answers: Path, replay: Path = REPLAY) -> list[dict[str, Any]]:
    """The replay's claims (the judge's replay, or ``replay``: one read again by another verifier), each abstract
    with its three-way answer; claims missing an answer are left out."""
    got = {a["pair"]: a for a in read_answers(answers)}
    rows = []
    for r in read_replay(replay):
        docs = [{**d, "pair": f"{r['claim']}:{d['doc_id']}", "answer": got.get(f"{r['claim']}:{d['doc_id']}")}
                for d in r["docs"]]
        if docs and all(d["answer"] for d in docs):
            rows.append({**r, "docs": docs})
    return rows


def judged(cal: Any, reading: Reading, d: Mapping[str, Any], threshold: float) -> tuple[str, float] | None:
    """One abstract's label and confidence under the judge ``cal`` (agent.judge.calibration.JudgeCalibration) reading
    it with ``reading``; None when it does not pass the floor or the gate."""
    gate_signal, p_claim = reading(d, d["answer"])
    if not cal.worth_asking(cal.verifier_bearing(d["bearing"])):
        return None
    if cal.bearing(d["bearing"], gate_signal) < threshold:
        return None
    st = cal.stance(p_claim, d["verifier_p_claim"])  # the verifier's reading counts where ``cal`` weighs it
    return st.label, st.confidence


def out_of_fold(rows: Sequence[dict[str, Any]], reading: Reading, min_confidence: float,
                vote: bool = False) -> dict[str, Any]:
    """Each fold of claims labelled by a gate, direction and threshold fitted on the other folds (as
    evals/training/judge_calibration.py fits the shipped judge; with ``vote`` the direction reads the verifier's
    own P(claim) beside the LLM's); abstract id -> (label, confidence) or None."""
    from agent.judge.calibration import JudgeCalibration
    from evals.training.judge_calibration import FLOOR_KEEPS, apply, direction_row, fit_logistic, label_only, pick

    labels: dict[str, tuple[str, float] | None] = {}
    for fold in range(FOLDS):
        fit = [r for k, r in enumerate(rows) if k % FOLDS != fold]
        docs = [d for r in fit for d in r["docs"]]
        gold = np.array([d["gold"] is not None for d in docs])
        x = np.array([[logit(d["bearing"]), logit(reading(d, d["answer"])[0])] for d in docs])
        gate = fit_logistic(x, gold)
        verifier_gate = fit_logistic(x[:, :1], gold)
        evidence = [d for d in docs if d["gold"] is not None]
        direction = fit_logistic(
            np.array([direction_row(reading(d, d["answer"])[1], d["verifier_p_claim"], vote) for d in evidence]),
            np.array([d["gold"] == 0 for d in evidence]))
        v_gold = np.sort(apply(verifier_gate, x[gold][:, :1]))
        floor = float(v_gold[int(np.floor(len(v_gold) * (1 - FLOOR_KEEPS)))]) - 1e-4
        cal = JudgeCalibration(verifier_gate=(verifier_gate[0], verifier_gate[1]), ask_floor=floor,
                               gate_weights=(gate[0], gate[1], gate[2]),
                               direction_weights=tuple(direction))

        grid = sorted({round(float(t), 3) for t in np.linspace(0.05, 0.8, 31)})
        trials = [{"threshold": t, **label_only(fit, partial(judged, cal, reading, threshold=t), min_confidence)}
                  for t in grid]
        chosen = pick(trials, TARGET_PRECISION)["threshold"]
        for k, r in enumerate(rows):
            if k % FOLDS == fold:
                for d in r["docs"]:
                    labels[d["pair"]] = judged(cal, reading, d, chosen)
    return labels


def labelled(labels: Mapping[str, tuple[str, float] | None], d: Mapping[str, Any]) -> tuple[str, float] | None:
    return labels[d["pair"]]


def bearing_set_counts(rows: Sequence[dict[str, Any]], labels: Mapping[str, Any]) -> dict[str, list[int]]:
    """Per reader's label (evals/bearing_set): [papers that count, papers], a paper counting when it passes the
    gate with a label other than No Evidence."""
    from evals.studies.bearing_set import LABELS, ORDER, final_label

    read = {}
    for line in LABELS.read_text().splitlines():
        item = json.loads(line)
        read[item["pair"]] = final_label(item["labels"]) if "labels" in item else item["label"]
    counts = {k: [0, 0] for k in ORDER}
    for pair, label in read.items():
        if pair in labels:
            got = labels[pair]
            counts[label][0] += got is not None and got[0] != "No Evidence"
            counts[label][1] += 1
    return counts


def mean_of(*ps: float) -> float:
    """The mean of a judge's readings (one question asked of the claim and of its opposite)."""
    return float(sum(ps) / len(ps))


def judges_compared(rows: Sequence[dict[str, Any]], judges: Mapping[str, tuple[Reading, int]],
                    min_confidence: float, votes: Collection[str] = ()) -> dict[str, Any]:
    """Each judge's out-of-fold labels read as a user and as the benchmark would: Label-Only P/R/F1, the verdict's
    side per held-out claim by gold class (evals.scifact.claim_level.replay_sides), and the bearing set's papers
    that count; with its LLM calls per abstract. The judges named in ``votes`` hear the verifier in the
    direction."""
    from evals.scifact.claim_level import gold_class, replay_sides
    from evals.training.bearing_replay import heldout_claims
    from evals.training.judge_calibration import label_only

    classes = {c.id: gold_class(["SUPPORT" if sets[0][1] == 0 else "CONTRADICT" for sets in c.evidence.values()])
               for c in heldout_claims()}
    out = {}
    for name, (reading, calls) in judges.items():
        labels = out_of_fold(rows, reading, min_confidence, vote=name in votes)
        out[name] = {
            "llm_calls_per_abstract": calls,
            "label_only": label_only(rows, partial(labelled, labels), min_confidence),
            "claims": replay_sides(rows, labels, classes),
            "bearing_set": bearing_set_counts(rows, labels),
        }
    return out


def side_aucs(docs: Sequence[Mapping[str, Any]], score: Callable[[Mapping[str, Any]], float]) -> dict[str, Any]:
    """AUC of ``score`` for SciFact evidence against the rest of the abstracts, and for each side's evidence alone
    against the abstracts that are not evidence (None where the abstracts hold none of that side)."""
    from evals.training.judge_calibration import auc

    s = [score(d) for d in docs]
    out: dict[str, Any] = {"evidence": auc(s, [d["gold"] is not None for d in docs])}
    for name, keep in (("contradicting", 1), ("supporting", 0)):
        pick = [k for k, d in enumerate(docs) if d["gold"] in (keep, None)]
        has = any(docs[k]["gold"] == keep for k in pick)
        out[name] = auc([s[k] for k in pick], [docs[k]["gold"] == keep for k in pick]) if has else None
    return out
