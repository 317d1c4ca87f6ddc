"""The gate's second option: a third choice, "C: neither", in the contrastive call, against the shipped yes/no
question, on the judge's replay of held-out SciFact train claims.

    python -m evals.studies.neither_choice ask [--limit N]     # the LLM's three-way answers, resumable
    python -m evals.studies.neither_choice report [--out evals/results]

``ask`` reads every abstract of the replay (evals/training/bearing_replay.py) as the product shows it to the LLM
(agent.judge.direction.evidence_text of the sentences the replay recorded) and asks prompts/direction_neither.md in both
orders (the claim as A, then as B; C is always "neither"). From the first token's probabilities over A, B and C:
P(neither) is C's share, averaged over the orders, and P(claim) is the claim's share of A and B, averaged over the
orders (the letter bias cancels as in agent.judge.direction.choose). One JSON row per abstract in
``evals/results/neither_choice/answers.jsonl``, appended as each is asked.

``report`` compares, with five folds of claims (each fold's gate, direction and threshold are fitted on the other
four, as evals/training/judge_calibration.py fits the shipped judge, and the fold is labelled by them):

* "yes/no, then A/B" (shipped): the gate on the verifier and the LLM's P(Yes, it bears), the direction from the
  two-order A/B call: three LLM calls per abstract;
* "A/B/C": the gate on the verifier and 1 - P(neither), the direction from the same call's A/B shares: two calls;
* "A/B/C gate, A/B direction": the three-way call's gate with the shipped direction (four calls, for the record).

Reported: the area under the ROC curve for "SciFact evidence" of each LLM reading, Label-Only precision / recall /
F1 of the out-of-fold labels, direction accuracy on evidence abstracts, the share of the bearing set's papers
(evals/bearing_set) that count, and the seconds of each call.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import prompts
from agent.judge.calibration import logit
from agent.llm.calls import first_token
from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.training.bearing_replay import REPLAY, read_replay

ANSWERS = REPO_ROOT / "evals" / "results" / "neither_choice" / "answers.jsonl"
FOLDS = 5
TARGET_PRECISION = 0.65


def three_way(probs: Mapping[str, float], reply: str) -> tuple[float, float, float]:
    """(P(A), P(B), P(C)) normalised over the three letters from the first token's probabilities; from the reply's
    letter alone when the server sent none of them; thirds when the reply is no letter."""
    p = [sum(v for t, v in probs.items() if t.upper() == letter) for letter in "ABC"]
    if sum(p) > 0:
        return p[0] / sum(p), p[1] / sum(p), p[2] / sum(p)
    letter = reply.strip()[:1].upper()
    if letter in ("A", "B", "C"):
        return tuple(float(letter == x) for x in "ABC")  # type: ignore[return-value]
    return 1 / 3, 1 / 3, 1 / 3


def choose_or_neither(llm: Any, evidence: str, claim: str, opposite: str) -> dict[str, Any]:
    """The three-way call in both orders: P(claim) among A and B, P(neither), each averaged; seconds per call."""
    system = prompts.load("judge_system")
    claims, neithers, seconds = [], [], []
    for claim_first in (True, False):
        a, b = (claim, opposite) if claim_first else (opposite, claim)
        t0 = time.perf_counter()
        reply, probs, _ = first_token(llm, system, prompts.render("direction_neither", evidence=evidence, a=a, b=b))
        seconds.append(round(time.perf_counter() - t0, 3))
        pa, pb, pc = three_way(probs, reply)
        share = pa / (pa + pb) if pa + pb > 0 else 0.5
        claims.append(share if claim_first else 1.0 - share)
        neithers.append(pc)
    return {
        "p_claim": round(sum(claims) / 2, 4),
        "p_neither": round(sum(neithers) / 2, 4),
        "orders": [round(c, 4) for c in claims],
        "neither_orders": [round(n, 4) for n in neithers],
        "seconds": seconds,
    }


Asker = Callable[[Any, str, Mapping[str, Any]], dict[str, Any]]  # (LLM, evidence as shown, replay row) -> answer


def ask_replay(limit: int | None, path: Path, asker: Asker, what: str) -> None:
    """``asker``'s answer for every abstract of the judge's replay that ``path`` does not hold yet, each read as the
    product shows it to the LLM (agent.judge.direction.evidence_text of the recorded sentences), appended to
    ``path`` as it comes (an interrupted run resumes)."""
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
                  **asker(deps.llm, evidence_text(deps, d["doc_id"], sentences), row)}
        with path.open("a") as fh:
            fh.write(json.dumps(answer) + "\n")
        print(f"{what}: {k}/{len(todo)} abstracts ({time.perf_counter() - t0:.1f} s)", flush=True)


def ask(limit: int | None, path: Path = ANSWERS) -> None:
    """Asks the three-way question of every replayed abstract that ``path`` does not hold yet."""
    ask_replay(limit, path, lambda llm, text, row: choose_or_neither(llm, text, row["text"], row["opposite"]),
               "neither")


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


def read_answers(path: Path = ANSWERS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


# a judge's reading of one replayed abstract: (its gate signal, its P(claim)) from the abstract and its answer
Reading = Callable[[Mapping[str, Any], Mapping[str, Any]], tuple[float, float]]
JUDGES: dict[str, tuple[Reading, int]] = {  # name: (reading, LLM calls per abstract)
    "yes/no, then A/B (shipped)": (lambda d, a: (d["llm_p_bears"], d["llm_p_claim"]), 3),
    "A/B/C": (lambda d, a: (1.0 - a["p_neither"], a["p_claim"]), 2),
    "A/B/C gate, A/B direction": (lambda d, a: (1.0 - a["p_neither"], d["llm_p_claim"]), 4),
}


def joined(answers: Path) -> list[dict[str, Any]]:
    """The replay's claims, each abstract with its three-way answer; claims missing an answer are left out."""
    got = {a["pair"]: a for a in read_answers(answers)}
    rows = []
    for r in read_replay(REPLAY):
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
    st = cal.stance(p_claim)
    return st.label, st.confidence


def out_of_fold(rows: Sequence[dict[str, Any]], reading: Reading, min_confidence: float) -> dict[str, Any]:
    """Each fold of claims labelled by a gate, direction and threshold fitted on the other folds (as
    evals/training/judge_calibration.py fits the shipped judge); abstract id -> (label, confidence) or None."""
    from agent.judge.calibration import JudgeCalibration
    from evals.training.judge_calibration import FLOOR_KEEPS, apply, fit_logistic, label_only, pick

    labels: dict[str, tuple[str, float] | None] = {}
    for fold in range(FOLDS):
        fit = [r for k, r in enumerate(rows) if k % FOLDS != fold]
        docs = [d for r in fit for d in r["docs"]]
        gold = np.array([d["gold"] is not None for d in docs])
        x = np.array([[logit(d["bearing"]), logit(reading(d, d["answer"])[0])] for d in docs])
        gate = fit_logistic(x, gold)
        verifier_gate = fit_logistic(x[:, :1], gold)
        evidence = [d for d in docs if d["gold"] is not None]
        direction = fit_logistic(np.array([[logit(reading(d, d["answer"])[1])] for d in evidence]),
                                 np.array([d["gold"] == 0 for d in evidence]))
        v_gold = np.sort(apply(verifier_gate, x[gold][:, :1]))
        floor = float(v_gold[int(np.floor(len(v_gold) * (1 - FLOOR_KEEPS)))]) - 1e-4
        cal = JudgeCalibration(verifier_gate=(verifier_gate[0], verifier_gate[1]), ask_floor=floor,
                               gate_weights=(gate[0], gate[1], gate[2]),
                               direction_weights=(direction[0], direction[1]))

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


def report(answers: Path, out: Path, argv: list[str] | None) -> int:
    from agent.settings.app import get_settings
    from evals.training.judge_calibration import auc, label_only

    rows = joined(answers)
    if not rows:
        print(f"no answers at {answers}: run python -m evals.studies.neither_choice ask first", file=sys.stderr)
        return 2
    docs = [d for r in rows for d in r["docs"]]
    gold = [d["gold"] is not None for d in docs]
    evidence = [d for d in docs if d["gold"] is not None]
    min_confidence = get_settings().judge.min_confidence
    res: dict[str, Any] = {
        **experiment_header("evals.studies.neither_choice", argv, "held-out SciFact train", []),
        "claims": len(rows),
        "abstracts": len(docs),
        "evidence_abstracts": sum(gold),
        "auc_evidence": {
            "verifier 1 - P(nei)": auc([d["bearing"] for d in docs], gold),
            "LLM P(Yes, it bears)": auc([d["llm_p_bears"] for d in docs], gold),
            "LLM 1 - P(neither)": auc([1 - d["answer"]["p_neither"] for d in docs], gold),
        },
        "direction_accuracy": {
            side: {
                "A/B": round(float(np.mean([(d["llm_p_claim"] > 0.5) == (d["gold"] == 0) for d in those])), 4),
                "A/B/C": round(float(np.mean([(d["answer"]["p_claim"] > 0.5) == (d["gold"] == 0) for d in those])),
                               4),
                "abstracts": len(those),
            }
            for side, those in (("all", evidence), ("supports", [d for d in evidence if d["gold"] == 0]),
                                ("contradicts", [d for d in evidence if d["gold"] == 1]))
        },
        "seconds_per_call": {
            "A/B/C": round(float(np.median([s for d in docs for s in d["answer"]["seconds"]])), 3),
        },
        "judges": {},
    }
    for name, (reading, calls) in JUDGES.items():
        labels = out_of_fold(rows, reading, min_confidence)
        scores = label_only(rows, partial(labelled, labels), min_confidence)
        res["judges"][name] = {"llm_calls_per_abstract": calls, "label_only": scores,
                               "bearing_set": bearing_set_counts(rows, labels)}
    write_experiment(out, "neither_choice", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The gate's two options: a yes/no question, or \"C: neither\" in the contrastive call",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {res['claims']} held-out SciFact train "
        f"claims, {res['abstracts']} retrieved abstracts ({res['evidence_abstracts']} SciFact evidence). Each "
        "judge's gate, direction and threshold are fitted on four folds of claims and label the fifth (target "
        f"Label-Only precision {TARGET_PRECISION}); figures are on the out-of-fold labels.",
        "",
        "Area under the ROC curve for \"SciFact evidence\": "
        + "; ".join(f"{k} {v}" for k, v in res["auc_evidence"].items()) + ".",
        "",
        "| judge | LLM calls per abstract | Label-Only P | R | F1 | labels | bearing set: bears count | partly "
        "| no (off-topic) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, j in res["judges"].items():
        s, b = j["label_only"], j["bearing_set"]
        cells = [f"{c}/{n}" for c, n in (b["bears"], b["partly"], b["no"])]
        lines.append(f"| {name} | {j['llm_calls_per_abstract']} | {s['precision']} | {s['recall']} | {s['f1']} "
                     f"| {s['predicted']} | " + " | ".join(cells) + " |")
    lines += ["", "Direction on SciFact evidence abstracts (P(claim) > 0.5 is the annotators' side):", "",
              "| abstracts | A/B call | A/B/C call |", "|---|---:|---:|"]
    for side, acc in res["direction_accuracy"].items():
        lines.append(f"| {side} ({acc['abstracts']}) | {acc['A/B']} | {acc['A/B/C']} |")
    lines += ["", f"Median seconds per three-way call: {res['seconds_per_call']['A/B/C']}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return ask_report_main(__doc__ or "", argv, ANSWERS, ask, report)


if __name__ == "__main__":
    sys.exit(main())
