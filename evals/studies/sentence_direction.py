"""Where the LLM's reading of an answer sentence's direction should flag it (SENTENCE_DIRECTION_BELOW,
agent/answer/sentence_direction.py), from the LLM's recorded choices on SciFact pairs: a claim and one of its rationale
sentences, the claim set against its rule-made opposite, both orders (the retired direction_judge study collected
them, through the product's own call: evals/studies/README.md). A claim its rationale supports stands for an answer
sentence its source supports; a claim its rationale contradicts, for a sentence that reverses its source in words of
its own.

The threshold is the highest that flags at most ``MAX_FALSE_FLAGS`` of the supported pairs of the held-out train
claims; dev is read once, at that threshold. No LLM call: the choices are in evals/results/direction_judge_cache.

    python -m evals.studies.sentence_direction [--out evals/results]
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

from evals.experiments import git_commit
from evals.training.direction_data import CACHE_DIR, direction_rows

SUPPORT, CONTRADICT = 0, 1
MAX_FALSE_FLAGS = 0.05
GRID = [round(0.45 + 0.0025 * k, 4) for k in range(25)]  # the LLM's averaged P(claim) lies close to 0.5


def shares(rows: list[dict[str, object]], threshold: float) -> tuple[float, float]:
    """(share of supported pairs flagged, share of contradicted pairs flagged) at ``threshold``."""
    sup = [float(r["llm"]) < threshold for r in rows if r["label"] == SUPPORT]  # type: ignore[arg-type]
    con = [float(r["llm"]) < threshold for r in rows if r["label"] == CONTRADICT]  # type: ignore[arg-type]
    return round(sum(sup) / len(sup), 4), round(sum(con) / len(con), 4)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    args = p.parse_args()
    held, dev = direction_rows(CACHE_DIR, "heldout"), direction_rows(CACHE_DIR, "dev")
    curve = {t: shares(held, t) for t in GRID}
    chosen = max(t for t, (false, _) in curve.items() if false <= MAX_FALSE_FLAGS)
    false_dev, caught_dev = shares(dev, chosen)
    pairs = {name: {"supported": sum(r["label"] == SUPPORT for r in rows),
                    "contradicted": sum(r["label"] == CONTRADICT for r in rows)}
             for name, rows in (("heldout", held), ("dev", dev))}  # fmt: skip
    out: dict[str, object] = {
        "command": "python -m evals.studies.sentence_direction",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "pairs": pairs,
        "heldout_curve": {str(t): {"supported_flagged": f, "contradicted_flagged": c} for t, (f, c) in curve.items()},
        "threshold": chosen,
        "dev": {"supported_flagged": false_dev, "contradicted_flagged": caught_dev},
    }
    (args.out / "sentence_direction.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [
        "# Where the LLM's reading of an answer sentence's direction flags it",
        "",
        f"`{out['command']}` — {out['date']}, commit {out['commit']}. No LLM call: the LLM's recorded choices "
        "(both orders, bare evidence) from `evals/results/direction_judge_cache`.",
        "",
        f"Pairs: held-out train {pairs['heldout']}, dev {pairs['dev']}. A supported pair stands for "
        "an answer sentence its source supports (flagging it is a false flag); a contradicted pair for a sentence "
        "that reverses its source in words of its own (flagging it is a catch).",
        "",
        f"Threshold: the highest with at most {MAX_FALSE_FLAGS:.0%} of held-out supported pairs flagged: "
        f"**{chosen}** (SENTENCE_DIRECTION_BELOW).",
        "",
        "| set | supported pairs flagged (false flags) | contradicted pairs flagged (caught) |",
        "|---|---:|---:|",
        f"| held-out train (chosen on) | {curve[chosen][0]:.3f} | {curve[chosen][1]:.3f} |",
        f"| dev (read once) | {false_dev:.3f} | {caught_dev:.3f} |",
        "",
        "Held-out curve:",
        "",
        "| P(sentence) below | supported flagged | contradicted flagged |",
        "|---:|---:|---:|",
        *(f"| {t} | {f:.3f} | {c:.3f} |" for t, (f, c) in curve.items()),
        "",
    ]
    (args.out / "sentence_direction.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
