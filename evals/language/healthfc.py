"""A claim in German and its English version, checked as the product checks them: HealthFC's claims (written in German,
each with an English version; read from ../shared/data/healthfc as it is stored, evaluation only), drawn with a fixed
seed. The German wording is translated by the product (agent.translate.in_english, the embedded LLM); both are run
through the graph to the judged verdict, as ``claimtrace eval scifact --judgement-only`` runs a claim, on the
embedded defaults. Compared: the verdict's side (supported, refuted, or neither) and the top three papers of the
fused ranking, as sets.

    python -m evals.language.healthfc [--n 300] [--seed 13] [--records DIR] [--out FILE]

Each pair's record is appended to ``--records`` (outside the repository: it holds HealthFC's text, whose licence
allows no copy) as soon as it is done, so a run stopped for time resumes where it stopped. The report (figures and row
numbers only) goes to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, git_commit
from evals.language.recognition import healthfc_pairs

TOP = 3


def drawn(total: int, n: int, seed: int) -> list[int]:
    """``n`` of ``total`` row numbers drawn with ``seed``, in the order they are checked."""
    return random.Random(seed).sample(range(total), n)


def checked(state: Mapping[str, Any]) -> dict[str, Any]:
    """What the comparison keeps of a judged check: its verdict's side, its top papers and whether it counts one."""
    from agent.judge.scoring import verdict_sign
    from agent.result import CheckResult

    result = CheckResult.from_state(state)
    v = result.verdict
    return {"side": verdict_sign(v.label) if v else 0, "label": v.label if v else None,
            "top": [c.doc_id for c in state.get("candidates", [])][:TOP],
            "counts_a_paper": bool(v and (v.supporting or v.contradicting))}


def run(rows: list[int], records: Path, text: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Each drawn pair of ``text`` (HealthFC's (German, English) claims) checked both ways, the records of earlier
    runs kept."""
    from agent.graph import build_graph
    from agent.service import load_deps, run_claim
    from agent.settings.app import get_settings
    from agent.translate import in_english

    done = {r["row"]: r for r in map(json.loads, records.read_text().splitlines())} if records.is_file() else {}
    todo = [k for k in rows if k not in done]
    if todo:
        deps = load_deps(get_settings())
        graph = build_graph(last="reformulate")  # through the judged verdict, as --judgement-only runs
        with records.open("a", encoding="utf-8") as fh:
            for k in todo:
                german, english = text[k]
                t0 = time.perf_counter()
                translated = in_english(deps.llm, german)
                t1 = time.perf_counter()
                de = checked(run_claim(translated.claim, deps, graph))
                t2 = time.perf_counter()
                en = checked(run_claim(" ".join(english.split()), deps, graph))
                rec = {"row": k, "language": translated.language, "translated": translated.translated,
                       "english": english, "as_translated": translated.claim, "de": de, "en": en,
                       "seconds": {"translate": round(t1 - t0, 2), "de": round(t2 - t1, 2),
                                   "en": round(time.perf_counter() - t2, 2)}}
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                fh.flush()
                done[k] = rec
                print(f"{len(done)}/{len(rows)} row {k}: sides {de['side']}/{en['side']}", flush=True)
    return [done[k] for k in rows if k in done]


def share(a: int, b: int) -> str:
    return f"{a} of {b} ({a / b:.2f})" if b else "none"


def median(xs: list[float]) -> float:
    s = sorted(xs)
    return s[len(s) // 2] if s else 0.0


def report(recs: list[dict[str, Any]], n: int, seed: int) -> str:
    k = len(recs)
    same_side = sum(r["de"]["side"] == r["en"]["side"] for r in recs)
    counted = [r for r in recs if r["en"]["counts_a_paper"]]
    same_counted = sum(r["de"]["side"] == r["en"]["side"] for r in counted)
    same_top = sum(set(r["de"]["top"]) == set(r["en"]["top"]) for r in recs)
    overlap = sum(len(set(r["de"]["top"]) & set(r["en"]["top"])) for r in recs)
    recognised = sum(r["language"] == "de" for r in recs)
    differs = [str(r["row"]) for r in recs if r["de"]["side"] != r["en"]["side"]]
    same_counted_share = share(same_counted, len(counted))
    secs = {part: median([r["seconds"][part] for r in recs]) for part in ("translate", "de", "en")}

    return f"""# A claim in German and its English version (HealthFC)

`python -m evals.language.healthfc --n {n} --seed {seed}` (commit {git_commit()}): {k} of the {n} drawn claims
checked so far, each twice through the judged verdict on the embedded defaults: its German wording as the product
translates it, and its English version. Rows are HealthFC's, numbered from 0 in `Datensatz.csv`; no claim text is kept
here (its licence allows no copy).

| measure | result | target |
|---|---|---|
| German recognised as German | {share(recognised, k)} | at least 0.98 |
| the same verdict side (supported, refuted, neither) | {share(same_side, k)} | at least 0.90 |
| the same side, of the claims whose English version counts a paper | {same_counted_share} | at least 0.85 |
| the same top {TOP} papers (as a set) | {share(same_top, k)} | at least 0.80 |
| top-{TOP} papers shared, mean | {overlap / k if k else 0:.2f} of {TOP} | |

Seconds a claim (median): translation {secs["translate"]:.1f}, the German claim's check {secs["de"]:.1f}, the English
version's {secs["en"]:.1f}.

Rows whose two checks take different sides: {", ".join(differs) or "none"}.
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--records", type=Path, default=REPO_ROOT.parent / "healthfc_run" / "records.jsonl")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results" / "language" / "healthfc.md")
    ap.add_argument("--report-only", action="store_true", help="write the report from the records so far")
    args = ap.parse_args(argv)
    args.records.parent.mkdir(parents=True, exist_ok=True)
    text = healthfc_pairs()
    rows = drawn(len(text), args.n, args.seed)
    if args.report_only:
        done = {r["row"]: r for r in map(json.loads, args.records.read_text().splitlines())}
        recs = [done[k] for k in rows if k in done]
    else:
        recs = run(rows, args.records, text)
    written = report(recs, args.n, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(written)
    print(written)


if __name__ == "__main__":
    main()
