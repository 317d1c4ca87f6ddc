"""Stance verifier trials side by side: each trained artifact measured on the held-out slice of SciFact TRAIN (the
claims model selection used; training never saw them) and once on SciFact DEV, with its temperature fitted on the
held-out slice, the expected calibration error before and after, the contrast probes, inference speed and what
training cost.

    python -m evals.training.verifier_trials --trial v3=/tmp/v3 --trial ctx=/tmp/trials/ctx/artifact \\
        --trial ctxflip=/tmp/trials/ctxflip/artifact --calibrate ctxflip

Each artifact is read with the premise style it was trained on (its config's "premise": "placed" = the run-time
premise with section, position and the sentence before; absent = "plain", "title: text"). A placed artifact is
also measured on plain dev premises: the with / without context comparison. ``--calibrate NAME`` writes the fitted
temperature into that artifact's config and draws its reliability diagram. ``--earlier FILE`` carries the trials of
an earlier run's JSON (and the runs it carried) into the tables, marked as such with each run's command, for trials
whose artifacts are gone or whose premise code has since changed (they cannot be re-measured as they were trained);
a name measured again in this run is not repeated. ``--abstract-level`` adds abstract-level pairs: joint-reading
artifacts are measured there, sentence-level ones by reading every sentence of each abstract.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.reliability import plot_reliability, reliability
from evals.scifact.data import RESULTS_DIR
from evals.training.augment import self_pair_examples
from evals.training.data import Claim, Doc, bm25_neighbours, build_eval_pairs, load_data, split_heldout
from evals.training.joint import joint_eval_pairs, joint_pairs, sentence_rule
from evals.training.label_metrics import direction_accuracy, metrics
from evals.training.probes import probe_results
from evals.training.trials_report import markdown
from evals.training.verifier_temperature import fit_temperature, softmax
from tools.text.distortion import negations

DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "scifact"


AbstractSets = dict[str, tuple[list[tuple[int, int]], list[int]]]


def measure(
    directory: Path,
    corpus: dict[int, Doc],
    claims: dict[str, list[Claim]],
    abstract: AbstractSets | None = None,
) -> dict[str, Any]:
    """One artifact on the held-out and dev pairs (raw logits, so the temperature is fitted here). A joint artifact
    (premise "abstract") is measured on abstract-level pairs; ``abstract`` also measures a sentence-level artifact
    there, reading every sentence of each abstract (evals/training/joint.py)."""
    from tools.models.verifier import CONFIG_FILE, Verifier

    config = json.loads((directory / CONFIG_FILE).read_text())
    style = config.get("premise", "plain")
    v = Verifier(directory)
    v.temperature = 1.0
    out: dict[str, Any] = {"premise": style, "config": config}
    sets: dict[str, tuple[list[tuple[str, str]], list[int]]] = {}
    if style == "abstract":
        if abstract is None:
            raise SystemExit(f"{directory} reads whole abstracts: measure it with --abstract-level")
        for name in ("heldout", "dev"):
            keys, labels = abstract[name]
            sets[name] = (joint_pairs(keys, claims[name], corpus), labels)
    for placed in ([True, False] if style == "placed" else [False]) if style != "abstract" else []:
        hp, hl, _, _ = build_eval_pairs(claims["heldout"], corpus, placed=placed)
        dp, dl, _, _ = build_eval_pairs(claims["dev"], corpus, placed=placed)
        suffix = "" if placed == (style == "placed") else "_plain_premises"
        sets["heldout" + suffix], sets["dev" + suffix] = (hp, hl), (dp, dl)
    logits = {name: np.asarray(v.logits(pairs)) for name, (pairs, _) in sets.items()}
    for name, (_, labels) in sets.items():
        out[name] = metrics(labels, [int(k) for k in logits[name].argmax(axis=1)])
        out[name]["direction_accuracy"] = direction_accuracy(logits[name], labels)
    temperature = fit_temperature(logits["heldout"], sets["heldout"][1])
    out["temperature"] = temperature
    out["calibration"] = {
        f"{name}_{when}": reliability(softmax(logits[name], t), sets[name][1])
        for name in ("heldout", "dev")
        for when, t in (("before", 1.0), ("after", temperature))
    }
    if style == "abstract":
        out["abstract_level"] = {"reading": "joint", "heldout": out["heldout"], "dev": out["dev"]}
        out["probes"] = []  # the probes judge one sentence of an abstract, not the whole abstract
    else:
        out["probes"] = [
            {"probe": p.name, "expected": p.expected, "predicted": label}
            for p, label in probe_results(v, style == "placed")
        ]
        out["self_reading"] = self_reading(v, claims["dev"], corpus, placed=style == "placed")
        if abstract is not None:
            out["abstract_level"] = {"reading": "every sentence, the most decided one labels the abstract"} | {
                name: metrics(abstract[name][1], sentence_rule(v, abstract[name][0], claims[name], corpus))
                for name in ("heldout", "dev")
            }
    pairs = sets["dev"][0][:256]
    v.predict(pairs[:32])
    t0 = time.perf_counter()
    v.predict(pairs)
    out["pairs_per_s"] = round(len(pairs) / (time.perf_counter() - t0), 1)
    results = directory.parent / "results" / "verifier_dev.json"
    trained = json.loads(results.read_text()) if results.is_file() else {}
    out["training_wall_time_s"] = trained.get("training_wall_time_s")
    out["epoch_log"] = trained.get("epoch_log")
    return out


def self_reading(v: Any, claims: list[Claim], corpus: dict[int, Doc], *, placed: bool) -> dict[str, Any]:
    """How the verifier reads each dev rationale sentence against its own premise (evals/training/augment.py's
    self-pairs): the share read as supporting itself, for sentences with a negation ("was not associated") and
    without, and the share of the rule-negated sentences read as contradicted. An answer sentence that repeats its
    evidence is read so by verify."""
    examples, _ = self_pair_examples(claims, corpus, placed=placed)
    labels = [r.label for r in v.predict([(e.hyp, e.variants[0]) for e in examples])]
    groups: dict[str, list[bool]] = {"negated": [], "plain": [], "flipped": []}
    for e, label in zip(examples, labels, strict=True):
        if e.label == 1:
            groups["flipped"].append(label == "contradicts")
        else:
            groups["negated" if negations(e.hyp) else "plain"].append(label == "supports")
    return {k: {"right": round(sum(r) / len(r), 3) if r else None, "n": len(r)} for k, r in groups.items()}


def main(argv: list[str] | None = None) -> int:
    import torch

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trial", action="append", required=True, metavar="NAME=DIR")
    p.add_argument("--calibrate", metavar="NAME", help="write the fitted temperature into this trial's artifact")
    p.add_argument("--note", default="", help="a line for the report (what each trial was trained with)")
    p.add_argument(
        "--earlier", type=Path, help="an earlier verifier_trials JSON: the tables carry its trials and those it carried"
    )
    p.add_argument("--earlier-note", default="", help="a line on how the earlier run differs")
    p.add_argument(
        "--abstract-level",
        action="store_true",
        help="also measure every trial on abstract-level pairs (needed for joint-reading artifacts)",
    )
    p.add_argument(
        "--no-abstract-level",
        action="append",
        default=[],
        metavar="NAME",
        help="a sentence-level trial too slow to read every sentence of every abstract (left out of that table)",
    )
    p.add_argument("--data-dir", type=Path, default=DATA_DIR)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--heldout-frac", type=float, default=0.15)
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)
    torch.set_num_threads(2)
    trials = dict(t.split("=", 1) for t in args.trial)
    corpus, train_claims, dev_claims = load_data(args.data_dir)
    _, held = split_heldout(train_claims, args.heldout_frac, args.seed)
    claims = {"heldout": held, "dev": dev_claims}
    abstract = None
    if args.abstract_level:
        abstract = {name: joint_eval_pairs(cs, corpus, bm25_neighbours(corpus, cs)) for name, cs in claims.items()}
    measured = {
        name: measure(Path(d), corpus, claims, None if name in args.no_abstract_level else abstract)
        for name, d in trials.items()
    }
    if args.calibrate:
        from tools.models.verifier import CONFIG_FILE

        m = measured[args.calibrate]
        cfg_path = Path(trials[args.calibrate]) / CONFIG_FILE
        config = json.loads(cfg_path.read_text())
        config["temperature"] = m["temperature"]
        config["calibration"] = {
            "method": "temperature scaling, fitted on the held-out slice of SciFact train (NLL, grid 0.5-4.0)",
            "heldout_ece_before": m["calibration"]["heldout_before"]["ece"],
            "heldout_ece_after": m["calibration"]["heldout_after"]["ece"],
        }
        cfg_path.write_text(json.dumps(config, indent=2) + "\n")
        curves = {"before (T=1)": m["calibration"]["dev_before"]}
        curves[f"after (T={m['temperature']})"] = m["calibration"]["dev_after"]
        plot_reliability(
            curves,
            args.out / "verifier_calibration.png",
            f"Verifier {args.calibrate}: reliability on SciFact dev pairs",
        )
    res = {
        **experiment_header("evals.training.verifier_trials", argv, "heldout + dev", []),
        "note": args.note,
        "trials": {
            name: {k: v for k, v in m.items() if k != "config"} | {"trained_with": m["config"]}
            for name, m in measured.items()
        },
        "calibrated": args.calibrate,
    }
    if args.earlier:
        res["earlier"] = carried_runs(json.loads(args.earlier.read_text()), args.earlier_note, set(measured))
    write_experiment(args.out, "verifier_trials", res, markdown)
    return 0


def carried_runs(before: Mapping[str, Any], note: str, measured: set[str]) -> list[dict[str, Any]]:
    """The runs an earlier trials JSON holds, newest first (its own trials, then those it carried), each with its
    command and the trials not measured since."""
    nested = before.get("earlier") or []
    nested = [nested] if isinstance(nested, Mapping) else list(nested)
    runs = [{k: before[k] for k in ("command", "date", "git_commit")} | {"trials": before["trials"], "note": note}]
    out, seen = [], set(measured)
    for run in [*runs, *nested]:
        trials = {n: m for n, m in run["trials"].items() if n not in seen}
        seen |= set(trials)
        if trials:
            out.append({**run, "trials": trials})
    return out


if __name__ == "__main__":
    sys.exit(main())
