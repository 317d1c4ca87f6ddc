"""A bearing set beyond SciFact's gold: (claim, retrieved paper) pairs from held-out SciFact **train** claims, each
read and labelled bears / partly / no by the rules in evals/bearing_set/RULES.md, and how often each kind of paper
counts under today's judge and under the shipped one.

    python -m evals.studies.bearing_set batches --claims 60 --out /tmp/bearing_batches   # the readers' files
    python -m evals.studies.bearing_set report [--out evals/results]

``batches`` writes the pairs of the first N claims of the judge's replay (evals/training/bearing_replay.py) in four
files, each pair with its claim, title and whole abstract and nothing else (not SciFact's gold, not the judge's
reading), for the readers. The committed set (``evals/bearing_set/labels.jsonl``) holds only the pair's ids, the
labels and each reader's reason: the abstracts stay in ../shared/data.

``report`` joins the labels with the replay and reports, per label, the share of papers that count: past the gate
with a label other than "No Evidence" (the verdict's own abstention aside), under three judges:

* "verifier's gate": the judge before the LLM read bearing (the verifier's gate at 0.225 and the direction's Platt
  scaling of agent/judge/judge_calibration.json at commit 8347942), on the replay of commit 93d0343 (sentences
  shortlisted by similarity to the claim);
* "LLM gate, similarity": the gate that reads the claim as fitted at 93d0343, on that replay;
* "shipped": agent/judge/judge_calibration.json on today's replay (sentences picked by the rationale selector).

The earlier replay and calibration are read from git, so the report needs the repository's history.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.training.bearing_replay import DATA_DIR, REPLAY, read_replay

SET_DIR = REPO_ROOT / "evals" / "bearing_set"
LABELS = SET_DIR / "labels.jsonl"
ORDER = ("bears", "partly", "no")
# today's judge (agent/judge/judge_calibration.json at 8347942): the verifier's gate and the direction's Platt scaling
TODAY_GATE, TODAY_THRESHOLD, TODAY_DIRECTION = (-2.3107, 0.9467), 0.225, (-0.0716, 10.0619)


def batches(claims: int, out: Path, parts: int = 4) -> None:
    from tools.corpus import load_corpus

    docs, _ = load_corpus(DATA_DIR / "corpus.jsonl")
    text = {d.doc_id: d for d in docs}
    pairs = []
    for row in read_replay(REPLAY)[:claims]:
        for d in row["docs"]:
            doc = text[d["doc_id"]]
            pairs.append({"pair": f"{row['claim']}:{d['doc_id']}", "claim": row["text"], "title": doc.title,
                          "abstract": " ".join(doc.sentences)})
    out.mkdir(parents=True, exist_ok=True)
    for k in range(parts):
        part = pairs[k::parts]
        (out / f"batch_{k + 1}.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in part))
    print(f"{len(pairs)} pairs in {parts} files under {out}")


SIMILARITY_COMMIT = "93d0343"  # the last commit whose replay and gate read the similarity shortlist


def at_commit(commit: str, path: Path) -> str:
    """The text of ``path`` (in this repository) at ``commit``."""
    rel = path.resolve().relative_to(REPO_ROOT)
    return subprocess.run(
        ["git", "show", f"{commit}:{rel.as_posix()}"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout


def counts_today(d: Mapping[str, Any]) -> bool:
    from agent.judge.calibration import JudgeCalibration

    cal = JudgeCalibration(verifier_gate=TODAY_GATE, direction_weights=TODAY_DIRECTION)
    return cal.verifier_bearing(d["bearing"]) >= TODAY_THRESHOLD and cal.stance(d["llm_p_claim"]).label != (
        "No Evidence"
    )


def counts_shipped(d: Mapping[str, Any], calibration: Path | None = None) -> bool:
    from agent.judge.calibration import load_calibration

    cal = load_calibration(calibration) if calibration else load_calibration()
    if not cal.worth_asking(cal.verifier_bearing(d["bearing"])):
        return False
    return cal.passes(cal.bearing(d["bearing"], d["llm_p_bears"])) and cal.stance(d["llm_p_claim"]).label != (
        "No Evidence"
    )


def final_label(labels: list[str]) -> str:
    """The readers' label: theirs when they agree, else the weaker (the rules' choice when unsure)."""
    return max(labels, key=ORDER.index)


def cohen_kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    agree = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    chance = sum(ca[k] * cb[k] for k in ORDER) / (n * n)
    return round((agree - chance) / (1 - chance), 4) if chance < 1 else 1.0


def report(out: Path, argv: list[str] | None) -> None:
    labels = [json.loads(line) for line in LABELS.read_text().splitlines()]
    replay = {f"{r['claim']}:{d['doc_id']}": d for r in read_replay(REPLAY) for d in r["docs"]}
    earlier = {
        f"{r['claim']}:{d['doc_id']}": d
        for line in at_commit(SIMILARITY_COMMIT, REPLAY).splitlines()
        for r in [json.loads(line)]
        for d in r["docs"]
    }
    with tempfile.TemporaryDirectory() as tmp:
        calibration = Path(tmp) / "judge_calibration.json"
        calibration.write_text(at_commit(SIMILARITY_COMMIT, REPO_ROOT / "agent" / "judge_calibration.json"))
        rows = []
        for lab in labels:
            d = replay[lab["pair"]]
            rows.append({"pair": lab["pair"], "label": final_label(lab["labels"]), "gold": d["gold"] is not None,
                         "today": counts_today(earlier[lab["pair"]]),
                         "similarity": counts_shipped(earlier[lab["pair"]], calibration),
                         "shipped": counts_shipped(d)})
    res: dict[str, Any] = experiment_header("evals.studies.bearing_set", argv, "heldout train", [])
    res["pairs"] = len(rows)
    res["claims"] = len({r["pair"].split(":")[0] for r in rows})
    two = [lab for lab in labels if len(lab["labels"]) == 2]
    same = sum(lab["labels"][0] == lab["labels"][1] for lab in two)
    res["readers_agree"] = round(same / len(two), 4) if two else None
    res["kappa"] = cohen_kappa([lab["labels"][0] for lab in two], [lab["labels"][1] for lab in two]) if two else None
    res["by_label"] = {}
    for name in ORDER:
        of = [r for r in rows if r["label"] == name]
        res["by_label"][name] = {
            "pairs": len(of),
            "scifact_gold": sum(r["gold"] for r in of),
            "count_today": sum(r["today"] for r in of),
            "count_similarity": sum(r["similarity"] for r in of),
            "count_shipped": sum(r["shipped"] for r in of),
        }
    counted = {k: [r for r in rows if r[k]] for k in ("today", "similarity", "shipped")}
    res["off_topic_among_counted"] = {
        k: round(sum(r["label"] == "no" for r in v) / len(v), 4) if v else None for k, v in counted.items()
    }
    res["rows"] = rows
    write_experiment(out, "bearing_set", res, markdown)


def share(n: int, of: int) -> str:
    return f"{n}/{of} ({n / of:.0%})" if of else "0/0"


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The bearing set: do the papers that count bear on the claim?",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {res['pairs']} (claim, retrieved paper) "
        f"pairs from {res['claims']} held-out SciFact train claims, labelled by the rules in "
        "`evals/bearing_set/RULES.md` (readers saw the claim and the abstract only). Readers agree on "
        f"{res['readers_agree']} of the pairs (Cohen's kappa {res['kappa']}); where they differ the weaker label "
        "stands. A paper counts when it passes the gate with a label other than No Evidence.",
        "",
        "| label | pairs | SciFact gold | count: verifier's gate | count: LLM gate, similarity | count: shipped |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, v in res["by_label"].items():
        lines.append(
            f"| {name} | {v['pairs']} | {v['scifact_gold']} | {share(v['count_today'], v['pairs'])} | "
            f"{share(v['count_similarity'], v['pairs'])} | {share(v['count_shipped'], v['pairs'])} |"
        )
    off = res["off_topic_among_counted"]
    lines += [
        "",
        f"Off-topic (\"no\") among the papers that count: verifier's gate {off['today']}, LLM gate on the similarity "
        f"shortlist {off['similarity']}, shipped {off['shipped']}.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("batches")
    b.add_argument("--claims", type=int, default=60)
    b.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report")
    r.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    if args.cmd == "batches":
        batches(args.claims, args.out)
    else:
        report(args.out, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
