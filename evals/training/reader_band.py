"""Fits where the abstract reader decides alone (agent.judge.reader.ReaderBand) on the judge's held-out replay: the
SciFact train claims that neither the verifiers nor the reader trained on (evals/training/data.split_heldout, 15 %,
seed 13), with every retrieved abstract the LLM read (evals/training/bearing_replay.py).

    python -m evals.training.reader_band read [--artifact tools/models/reader]   # the reader reads each abstract
    python -m evals.training.reader_band fit [--write]                           # the band, and the table

``read`` adds the reader's P(supports, refutes, nei) of each replayed abstract (claim against the whole abstract,
tools.text.premise.whole_abstract) to ``evals/results/reader/replay_reader.jsonl``. ``fit`` tries every band of a
grid: the reader sets aside below ``aside_below``; from ``decide_from`` it passes the paper past the gate, labelling
it itself when at least ``sure`` of the side (never with ``sure`` None: the two-part judge's direction reads the side,
from the LLM's recorded answer); with ``gate_floor`` such a paper passes only where the gate's recorded reading is at
least that floor (else the gate sets it aside), and below the gate's threshold only where the LLM's side is the
reader's; the rest goes to the two-part judge as shipped (its gate and direction). It keeps the band with the most
settled claims on the right side whose wrong sides do not exceed the judge's own and whose Label-Only precision
does not fall below it; on a tie, the fewest claims without evidence given a side, the higher
precision, then the band where the reader decides less (its own side last), then the fewest papers left to the LLM.
The reader alone (JUDGE_DIRECTION=reader: what it does not label does not count) gets its own band from the same
trials, by the same rule and order among the bands that let it label (``sure`` set). ``--write`` puts both in
agent/judge/judge_calibration.json (``reader_band``, ``reader_alone_band``), the second with whether it met the
rule. Dev is never read here.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.judge.calibration import CALIBRATION_FILE, ReaderBand, load_calibration
from agent.judge.reader import Reading, decide, same_side
from evals.experiments import git_commit
from evals.scifact.claim_level import gold_class, side_table
from evals.training.bearing_replay import DATA_DIR, REPLAY, read_replay
from evals.training.data import load_data, split_heldout
from evals.training.judge_calibration import Labeller, label_only
from evals.training.replay_readings import gate_reading

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "evals" / "results" / "reader"
READINGS = OUT / "replay_reader.jsonl"
GRID_ASIDE = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4)
GRID_DECIDE = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
GRID_SURE: tuple[float | None, ...] = (0.6, 0.7, 0.8, 0.9, 0.95, None)
GRID_FLOOR: tuple[float | None, ...] = (None, 0.1, 0.2, 0.3)  # None: a paper the reader passes skips the gate


def read(artifact: Path, out: Path = READINGS, limit: int = 0) -> int:
    from tools.models.verifier import Verifier
    from tools.text.premise import whole_abstract

    corpus, _, _ = load_data(DATA_DIR)
    reader = Verifier(artifact)
    rows = read_replay(REPLAY)[: limit or None]
    pairs = [(r["text"], whole_abstract(corpus[int(d["doc_id"])].title, corpus[int(d["doc_id"])].sents))
             for r in rows for d in r["docs"]]
    probs = iter(reader.predict_proba(pairs, batch_size=8))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as f:
        for r in rows:
            for d in r["docs"]:
                f.write(json.dumps({"claim": r["claim"], "doc_id": d["doc_id"],
                                    "reader": [round(p, 4) for p in next(probs)]}) + "\n")
    print(f"{len(pairs)} abstracts of {len(rows)} held-out claims read by {artifact}")
    return 0


def gold_sides() -> dict[int, str]:
    """Held-out claim id -> its gold class (evals.scifact.claim_level.gold_class: SUPPORT, CONTRADICT or NEI)."""
    _, train, _ = load_data(DATA_DIR)
    names = {0: "SUPPORT", 1: "CONTRADICT"}
    return {c.id: gold_class([names[lab] for sets in c.evidence.values() for _, lab in sets])
            for c in split_heldout(train, 0.15, 13)[1]}


def claim_table(rows: Sequence[dict[str, Any]], labeller: Labeller, min_confidence: float,
                gold: dict[int, str]) -> dict[str, Any]:
    """The claim-level table (evals.scifact.claim_level.side_table) of the verdicts the product's rule gives from
    ``labeller``'s labels, every paper weighed alike; with the settled claims right (``right``) and the claims
    without evidence given a side (``no_evidence_sided``)."""
    from agent.judge.scoring import GRADE_SCORE, verdict_sign
    from agent.judge.verdict import decide as verdict
    from agent.state import SourceAssessment

    pairs = []
    for r in rows:
        labelled = []
        for d in r["docs"]:
            got = labeller(d)
            if got is not None:
                labelled.append(SourceAssessment(doc_id=d["doc_id"], label=got[0], score=GRADE_SCORE[got[0]],
                                                 reputation=1.0, explanation="", stance_confidence=got[1]))
        pairs.append((gold[int(r["claim"])], verdict_sign(verdict(labelled, 0, 1.0, min_confidence).label)))
    table = side_table(pairs)
    return {**table, "right": table["SUPPORT"]["right"] + table["CONTRADICT"]["right"],
            "no_evidence_sided": table["NEI"]["wrong"]}


def labellers(band: ReaderBand | None, alone: bool) -> Labeller:
    """A judge on replayed abstracts: today's two-part judge (``band`` None), the reader first with the LLM on what
    it does not label (only the side of a paper it finds bearing on the claim), or the reader alone."""
    from agent.judge.scoring import grade

    cal = load_calibration()

    def judge(d: dict[str, Any]) -> tuple[str, float] | None:
        if not cal.worth_asking(cal.verifier_bearing(d["bearing"])):
            return None
        fate, doubted = "unsure", False
        gate = cal.bearing(d["bearing"], d["llm_p_bears"])
        reading = Reading(*d["reader"]) if band is not None else None
        if band is not None and reading is not None:
            fate = decide(reading, band)
            if fate == "aside" or (fate in ("bears", "unsure") and alone):
                return None
            if fate in ("bears", "counts") and not alone and band.gate_floor is not None:
                if gate < band.gate_floor:
                    return None  # the reader's key turns, the gate's does not
                doubted = not cal.passes(gate)  # the LLM reads its side, which must be the reader's
            if fate == "counts" and not doubted:
                return grade(2 * reading.p_claim - 1), reading.confidence
        if fate == "unsure" and not cal.passes(gate):
            return None
        st = cal.stance(d["llm_p_claim"], d["verifier_p_claim"])
        if doubted and reading is not None and not same_side(reading, st.score):
            return None
        return st.label, st.confidence

    return judge


def llm_reads(rows: Sequence[dict[str, Any]], band: ReaderBand) -> int:
    """Papers the reader leaves to the LLM (past the verifier's floor), for their side or for the gate and side."""
    cal = load_calibration()
    asked = ("bears", "unsure", "counts") if band.gate_floor is not None else ("bears", "unsure")
    return sum(1 for r in rows for d in r["docs"] if cal.worth_asking(cal.verifier_bearing(d["bearing"]))
               and decide(Reading(*d["reader"]), band) in asked)


def caution(band: ReaderBand) -> tuple[int, float, float, float]:
    """Larger for a band where the reader decides less: its own side never, or only when surer; passing fewer
    papers; setting fewer aside; the gate's floor nearer its threshold."""
    return (band.sure is None, band.sure or 1.0, band.decide_from - band.aside_below,
            1.0 if band.gate_floor is None else band.gate_floor)


def trial(rows: Sequence[dict[str, Any]], judge: Labeller, min_confidence: float,
          gold: dict[int, str]) -> dict[str, Any]:
    return {"claims": claim_table(rows, judge, min_confidence, gold),
            "label_only": label_only(rows, judge, min_confidence)}


def fit(write: bool, source: Path = READINGS, report_path: Path = OUT / "band_heldout.json.gz") -> int:
    from agent.settings.app import get_settings

    readings = {(int(x["claim"]), x["doc_id"]): x["reader"] for x in map(json.loads, source.read_text().splitlines())}
    rows = gate_reading(read_replay(REPLAY), "shown", True, "max")  # as the shipped gate reads
    for r in rows:
        for d in r["docs"]:
            d["reader"] = readings[(int(r["claim"]), d["doc_id"])]
    gold = gold_sides()
    min_conf = get_settings().judge.min_confidence
    today = trial(rows, labellers(None, False), min_conf, gold)
    trials = []
    for a in GRID_ASIDE:
        for f in GRID_DECIDE:
            for s in GRID_SURE:
                alone = trial(rows, labellers(ReaderBand(a, f, s), True), min_conf, gold)  # the reader alone: no gate
                for floor in GRID_FLOOR:
                    band = ReaderBand(a, f, s, floor)
                    with_llm = trial(rows, labellers(band, False), min_conf, gold)
                    trials.append({"band": band.__dict__, "llm_reads": llm_reads(rows, band), **with_llm,
                                   "alone": alone})
    ok = [t for t in trials if t["claims"]["wrong_side"] <= today["claims"]["wrong_side"]
          and t["label_only"]["precision"] >= today["label_only"]["precision"]]
    best = max(ok or trials, key=lambda t: (t["claims"]["right"], -t["claims"]["no_evidence_sided"],
                                             t["label_only"]["precision"], caution(ReaderBand(**t["band"])),
                                             -t["llm_reads"]))
    labelling = [t for t in trials if t["band"]["sure"] is not None and t["band"]["gate_floor"] is None]
    alone_ok = [t for t in labelling if t["alone"]["claims"]["wrong_side"] <= today["claims"]["wrong_side"]
                and t["alone"]["label_only"]["precision"] >= today["label_only"]["precision"]]
    alone = max(alone_ok or labelling, key=lambda t: (
        t["alone"]["claims"]["right"], -t["alone"]["claims"]["no_evidence_sided"],
        t["alone"]["label_only"]["precision"], caution(ReaderBand(**t["band"]))))
    papers = sum(1 for r in rows for d in r["docs"])
    shown = source.resolve().relative_to(REPO) if source.resolve().is_relative_to(REPO) else source
    given = "" if source == READINGS else f" --readings {shown}"
    report = {"command": "python -m evals.training.reader_band fit" + given + (" --write" if write else ""),
              "git_commit": git_commit(), "claims": len(rows), "abstracts": papers, "today": today,
              "chosen": best, "rule_met": bool(ok), "chosen_alone": {"band": alone["band"], **alone["alone"]},
              "alone_rule_met": bool(alone_ok), "trials": trials}
    report_path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report, separators=(",", ":")) + "\n"
    if report_path.suffix == ".gz":  # every trial of the grid: gzip keeps the tree small
        report_path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        report_path.write_text(text)
    print(json.dumps({k: report[k] for k in ("today", "chosen", "rule_met", "chosen_alone", "alone_rule_met")},
                     indent=1))
    if write and not ok:
        print("no band meets the rule (wrong sides not up, Label-Only precision not down): nothing written",
              file=sys.stderr)
        return 1
    if write:
        raw = json.loads(CALIBRATION_FILE.read_text())
        raw["reader_band"] = best["band"]
        raw["reader_alone_band"] = alone["band"]
        fitted = raw.setdefault("fitted", {})
        fitted["reader_band"] = {
            "command": report["command"], "git_commit": report["git_commit"],
            "held_out_claims": best["claims"], "label_only": best["label_only"], "llm_reads": best["llm_reads"]}
        fitted["reader_alone_band"] = {
            "command": report["command"], "git_commit": report["git_commit"], "rule_met": bool(alone_ok),
            "held_out_claims": alone["alone"]["claims"], "label_only": alone["alone"]["label_only"]}
        CALIBRATION_FILE.write_text(json.dumps(raw, indent=2) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("read")
    r.add_argument("--artifact", type=Path, default=REPO / "tools" / "models" / "reader")
    r.add_argument("--out", type=Path, default=READINGS)
    r.add_argument("--limit", type=int, default=0, help="only the first N claims (a smoke test)")
    f = sub.add_parser("fit")
    f.add_argument("--write", action="store_true", help="put the band in agent/judge/judge_calibration.json")
    f.add_argument("--readings", type=Path, default=READINGS, help="the reader's readings (what `read` wrote)")
    f.add_argument("--report", type=Path, default=OUT / "band_heldout.json.gz", help="the report (.json, or .json.gz)")
    args = p.parse_args(argv)
    if args.cmd == "read":
        return read(args.artifact, args.out, args.limit)
    return fit(args.write, args.readings, args.report)


if __name__ == "__main__":
    sys.exit(main())
