"""The trials report of evals/training/verifier_trials.py as Markdown: one row per artifact (held-out and dev
macro-F1, per-class F1, direction accuracy, temperature and calibration, probes, self-reading, speed, training
time), the runs carried from earlier reports, the with / without context table, the abstract-level table and the
probes' predicted labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def selfread(reading: Mapping[str, Any] | None) -> str:
    if not reading:
        return "-"
    return " / ".join(f"{reading[k]['right']:.2f} ({reading[k]['n']})" for k in ("negated", "plain", "flipped"))


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# Stance verifier trials",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}.",
        "",
        "Held-out = the 15 % slice of SciFact train claims model selection used (seed 13); dev = SciFact dev, "
        "measured once per artifact. Pairs: each gold rationale (supports / contradicts) plus up to 3 sentences of the "
        "same abstracts in no rationale (nei). Macro-F1 over the three labels; ECE of the top-label confidence, "
        "10 bins, before / after temperature scaling fitted on held-out.",
    ]
    if res.get("note"):
        lines += ["", res["note"]]
    lines += [
        "",
        "| trial | premise | held-out macro-F1 | dev macro-F1 | dev supports F1 | dev contradicts F1 | dev nei F1 | "
        "dev direction accuracy (bearing pairs) | T | dev ECE before → after | probes right | "
        "dev self-reading: with a negation / without / negated | pairs/s | training s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|",
    ]
    runs = res.get("earlier", [])
    earlier = {f"{n} (earlier{'' if len(runs) == 1 else f' {k}'})": m for k, run in enumerate(runs, start=1)
               for n, m in run["trials"].items()}  # fmt: skip
    every = {**res["trials"], **earlier}
    rows = {n: m for n, m in every.items() if m["premise"] != "abstract"}
    for name, m in rows.items():
        per = m["dev"]["per_class"]
        cal = m["calibration"]
        right = sum(p["predicted"] == p["expected"] for p in m["probes"])
        lines.append(
            f"| {name} | {m['premise']} | {m['heldout']['macro_f1']:.3f} | {m['dev']['macro_f1']:.3f} | "
            f"{per['supports']['f1']:.3f} | {per['contradicts']['f1']:.3f} | {per['nei']['f1']:.3f} | "
            f"{direction if (direction := m['dev'].get('direction_accuracy')) is not None else '-'} | "
            f"{m['temperature']:.2f} | {cal['dev_before']['ece']:.3f} → {cal['dev_after']['ece']:.3f} | "
            f"{right}/{len(m['probes'])} | {selfread(m.get('self_reading'))} | {m['pairs_per_s']} | "
            f"{m['training_wall_time_s'] or '-'} |"
        )
    if any("self_reading" in m for m in rows.values()):
        lines += [
            "",
            "Self-reading: each SciFact dev rationale sentence (its heading removed, as an answer repeats it) against "
            "its own premise, the share read as supports, for sentences with a negation and without; then the "
            "share of those sentences negated by rule that is read as contradicts. Counts in brackets.",
        ]
    for k, e in enumerate(runs, start=1):
        tag = "earlier" if len(runs) == 1 else f"earlier {k}"
        lines += ["", f"({tag}): `{e['command']}` — {e['date']}, commit {e['git_commit']}. {e['note']}".rstrip()]
    plain = {n: m for n, m in rows.items() if "dev_plain_premises" in m}
    if plain:
        lines += [
            "",
            "With vs without context (the same placed artifact on plain 'title: text' premises):",
            "",
            "| trial | held-out macro-F1 placed / plain | dev macro-F1 placed / plain | "
            "dev contradicts F1 placed / plain |",
            "|---|---|---|---|",
        ]
        for name, m in plain.items():
            lines.append(
                f"| {name} | {m['heldout']['macro_f1']:.3f} / {m['heldout_plain_premises']['macro_f1']:.3f} | "
                f"{m['dev']['macro_f1']:.3f} / {m['dev_plain_premises']['macro_f1']:.3f} | "
                f"{m['dev']['per_class']['contradicts']['f1']:.3f} / "
                f"{m['dev_plain_premises']['per_class']['contradicts']['f1']:.3f} |"
            )
    abstract = {n: m for n, m in every.items() if "abstract_level" in m}
    if abstract:
        lines += [
            "",
            "Abstract level, joint reading against sentence-by-sentence judging. Pairs: every evidence abstract of a "
            "claim (supports / contradicts), every cited abstract without evidence and the claim's first BM25 "
            "neighbour that it does not cite (nei).",
            "",
            "| trial | reading | held-out macro-F1 | dev macro-F1 | dev supports F1 | dev contradicts F1 | "
            "dev nei F1 | pairs/s | training s |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, m in abstract.items():
            a = m["abstract_level"]
            per = a["dev"]["per_class"]
            speed = m["pairs_per_s"] if m["premise"] == "abstract" else "-"
            lines.append(
                f"| {name} | {a['reading']} | {a['heldout']['macro_f1']:.3f} | {a['dev']['macro_f1']:.3f} | "
                f"{per['supports']['f1']:.3f} | {per['contradicts']['f1']:.3f} | {per['nei']['f1']:.3f} | "
                f"{speed} | {m['training_wall_time_s'] or '-'} |"
            )
    names = [n for n in res["trials"] if res["trials"][n]["probes"]]
    lines += [
        "",
        "Probes (evals/training/probes.py), predicted label per trial of this run:",
        "",
        "| probe | expected | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for k, probe in enumerate(res["trials"][names[0]]["probes"]):
        cells = [res["trials"][n]["probes"][k]["predicted"] for n in names]
        lines.append(f"| {probe['probe']} | {probe['expected']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
