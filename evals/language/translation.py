"""How faithfully the LLM turns a claim into English (agent.translate.in_english); with ``--baseline``, the prompt
as it stands against the prompt at an earlier commit, in one run on one machine.

    python -m evals.language.translation [--baseline REV] [--healthfc 100] [--seed 13] [--out FILE]

Two sets, each claim with the English it should become:
- **Tuning** (``translation_tuning.jsonl``): 30 SciFact *train* claims translated into German by hand for this test
  by the session that built it (a language model writing as a translator, not a native speaker), the English read
  from ../shared/data/scifact at run time. The prompt is chosen on this set only; none of its words are in the
  prompt's examples.
- **HealthFC** (``--healthfc N``): N German claims drawn with ``--seed``, with HealthFC's own English versions
  (evaluation only; read as stored, never copied; the report keeps figures only).

Per claim: the share of the English version's content stems (tools.text.overlap.content_stems, five-letter prefixes)
found in the translation, whether the translation was kept (agent.translate.kept), and whether it states a finding
(tools.text.claim_rules.checkable) where the English version does: a translation that drops the verb ("Antibiotics
for heart attacks.") states none. Times are the LLM's, per claim.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, git_commit
from evals.language.both_ways import RESULTS, median, publish
from evals.language.recognition import healthfc_pairs
from tools.text.claim_rules import checkable
from tools.text.overlap import content_stems

TUNING = Path(__file__).with_name("translation_tuning.jsonl")
TRAIN = REPO_ROOT.parent / "shared" / "data" / "scifact" / "claims_train.jsonl"


def tuning_pairs() -> list[tuple[str, str]]:
    english = {r["id"]: r["claim"] for r in map(json.loads, TRAIN.read_text().splitlines())}
    return [(r["claim"], english[r["id"]]) for r in map(json.loads, TUNING.read_text().splitlines())]


def prompt_at(rev: str) -> str:
    """prompts/translate.md as it was at ``rev``."""
    return subprocess.run(["git", "show", f"{rev}:prompts/translate.md"], cwd=REPO_ROOT, check=True,
                          capture_output=True, text=True).stdout


def stem_recall(translation: str, english: str) -> float:
    want = content_stems(english)
    return len(want & content_stems(translation)) / len(want) if want else 1.0


def measured(llm: Any, pairs: list[tuple[str, str]], template: str | None) -> dict[str, Any]:
    """The translations of ``pairs`` with ``template`` (None: the prompt as it stands), and their figures."""
    from agent.translate import in_english

    recall, kept, finding, wanted, seconds = [], 0, 0, 0, []
    for asked, english in pairs:
        t0 = time.perf_counter()
        got = in_english(llm, asked, template)
        seconds.append(time.perf_counter() - t0)
        recall.append(stem_recall(got.claim, english))
        kept += got.translated
        if checkable(english)[0]:
            wanted += 1
            finding += got.translated and checkable(got.claim)[0]
    n = len(pairs)
    return {"claims": n, "stem_recall": round(sum(recall) / n, 3), "all_stems": sum(r == 1.0 for r in recall),
            "kept": kept, "states_a_finding": finding, "english_states_one": wanted,
            "seconds_median": round(median(seconds), 2)}


def table(rows: list[tuple[str, str, dict[str, Any]]]) -> str:
    out = ["| set | prompt | claims | stems of the English version found (mean) | all found | translation kept | "
           "states a finding where the English version does | seconds a claim (median) |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, prompt, m in rows:
        out.append(f"| {name} | {prompt} | {m['claims']} | {m['stem_recall']:.3f} | {m['all_stems']} | {m['kept']} | "
                   f"{m['states_a_finding']} of {m['english_states_one']} | {m['seconds_median']:.2f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", help="a commit whose prompts/translate.md is measured too, in the same run")
    ap.add_argument("--healthfc", type=int, default=0, help="German HealthFC claims to measure too (0: none)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=RESULTS / "translation.md")
    args = ap.parse_args(argv)
    from agent.service import load_deps
    from agent.settings.app import get_settings

    llm = load_deps(get_settings()).llm
    prompts: list[tuple[str, str | None]] = [(f"at {args.baseline}", prompt_at(args.baseline))] if args.baseline else []
    prompts.append(("as it stands", None))
    sets = [("tuning (SciFact train, German by hand)", tuning_pairs())]
    if args.healthfc:
        pairs = healthfc_pairs()
        sets.append((f"HealthFC, {args.healthfc} drawn (seed {args.seed})",
                     [pairs[k] for k in random.Random(args.seed).sample(range(len(pairs)), args.healthfc)]))
    rows = []
    for name, pairs in sets:
        for label, template in prompts:
            rows.append((name, label, measured(llm, pairs, template)))
            print(rows[-1], flush=True)
    command = " ".join(["python -m evals.language.translation", *(argv if argv is not None else sys.argv[1:])])
    publish(f"""# Claims translated into English by the LLM, against the English they should become

`{command}` (commit {git_commit()}; the embedded LLM; every prompt in one run). What the sets are and how each
figure is counted: `evals/language/translation.py`.

{table(rows)}
""", args.out)


if __name__ == "__main__":
    main()
