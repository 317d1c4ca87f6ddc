"""A claim in another language and its English version, both checked as the product checks them: the other wording
is translated by the product (agent.translate.in_english, the embedded LLM), and both are run through the graph to
the judged verdict, as ``claimtrace eval scifact --judgement-only`` runs a claim, on the embedded defaults. Compared:
the language recognised, the verdict's side (supported, refuted, or neither) and the top three papers of the fused
ranking, as sets. Used by evals.language.healthfc (German) and evals.language.scifact_sample (Spanish, French,
Portuguese).

Each pair's record is appended to a records file as soon as it is done, so a run stopped for time resumes where it
stopped: ``asked`` is the check of the claim as asked (translated), ``en`` that of its English version."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

TOP = 3
RESULTS = Path(__file__).resolve().parents[2] / "evals" / "results" / "language"


class Pair:
    """One claim to compare: its key in the records, its wording in another language, its English version."""

    def __init__(self, key: str, asked: str, english: str) -> None:
        self.key, self.asked, self.english = key, asked, english


def checked(state: Mapping[str, Any]) -> dict[str, Any]:
    """What the comparison keeps of a judged check: its verdict's side, its top papers and whether it counts one."""
    from agent.judge.scoring import verdict_sign
    from agent.result import CheckResult

    result = CheckResult.from_state(state)
    v = result.verdict
    return {"side": verdict_sign(v.label) if v else 0, "label": v.label if v else None,
            "top": [c.doc_id for c in state.get("candidates", [])][:TOP],
            "counts_a_paper": bool(v and (v.supporting or v.contradicting))}


def run(pairs: list[Pair], records: Path) -> list[dict[str, Any]]:
    """Each pair checked both ways, the records of earlier runs kept; the records in the pairs' order."""
    from agent.graph import build_graph
    from agent.service import load_deps, run_claim
    from agent.settings.app import get_settings
    from agent.translate import in_english

    done = {r["key"]: r for r in map(json.loads, records.read_text().splitlines())} if records.is_file() else {}
    todo = [p for p in pairs if p.key not in done]
    if todo:
        deps = load_deps(get_settings())
        graph = build_graph(last="reformulate")  # through the judged verdict, as --judgement-only runs
        with records.open("a", encoding="utf-8") as fh:
            for p in todo:
                t0 = time.perf_counter()
                translated = in_english(deps.llm, p.asked)
                t1 = time.perf_counter()
                asked = checked(run_claim(translated.claim, deps, graph))
                t2 = time.perf_counter()
                en = checked(run_claim(" ".join(p.english.split()), deps, graph))
                rec = {"key": p.key, "language": translated.language, "translated": translated.translated,
                       "english": p.english, "as_translated": translated.claim, "asked": asked, "en": en,
                       "seconds": {"translate": round(t1 - t0, 2), "asked": round(t2 - t1, 2),
                                   "en": round(time.perf_counter() - t2, 2)}}
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                fh.flush()
                done[p.key] = rec
                print(f"{len(done)}/{len(pairs)} {p.key}: sides {asked['side']}/{en['side']}", flush=True)
    return [done[p.key] for p in pairs if p.key in done]


def kept(pairs: list[Pair], records: Path) -> list[dict[str, Any]]:
    """The records a run has written so far, in the pairs' order."""
    done = {r["key"]: r for r in map(json.loads, records.read_text().splitlines())}
    return [done[p.key] for p in pairs if p.key in done]


def add_arguments(ap: argparse.ArgumentParser, records: Path, out: Path) -> None:
    """The options every comparison takes: where its records and its report go, and whether to run at all."""
    ap.add_argument("--records", type=Path, default=records, help="the records file (outside the repository)")
    ap.add_argument("--out", type=Path, default=out, help="the report")
    ap.add_argument("--report-only", action="store_true", help="write the report from the records so far")


def compared(pairs: list[Pair], args: argparse.Namespace) -> list[dict[str, Any]]:
    """The pairs' records: those kept so far with --report-only, else after running the pairs not yet done."""
    args.records.parent.mkdir(parents=True, exist_ok=True)
    return kept(pairs, args.records) if args.report_only else run(pairs, args.records)


def publish(report: str, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(report)


def share(a: int, b: int) -> str:
    return f"{a} of {b} ({a / b:.2f})" if b else "none"


def median(xs: list[float]) -> float:
    s = sorted(xs)
    return s[len(s) // 2] if s else 0.0


def same_side(rec: dict[str, Any]) -> bool:
    """Whether a record's two checks take the same verdict side."""
    return bool(rec["asked"]["side"] == rec["en"]["side"])


def shared_top(rec: dict[str, Any]) -> int:
    """How many of the top papers a record's two checks share."""
    return len(set(rec["asked"]["top"]) & set(rec["en"]["top"]))


def same_top(rec: dict[str, Any]) -> bool:
    """Whether a record's two checks list the same top papers, as a set."""
    return set(rec["asked"]["top"]) == set(rec["en"]["top"])


def table(recs: list[dict[str, Any]], language: str) -> str:
    """The comparison's figures, with the issue's targets, and the seconds a claim."""
    k = len(recs)
    same_sides = sum(map(same_side, recs))
    counted = [r for r in recs if r["en"]["counts_a_paper"]]
    same_counted = sum(map(same_side, counted))
    same_tops = sum(map(same_top, recs))
    overlap = sum(map(shared_top, recs))
    recognised = sum(r["language"] == language for r in recs)
    counted_share = share(same_counted, len(counted))
    secs = {part: median([r["seconds"][part] for r in recs]) for part in ("translate", "asked", "en")}
    return f"""| measure | result | target |
|---|---|---|
| recognised as the language it is in | {share(recognised, k)} | at least 0.98 |
| the same verdict side (supported, refuted, neither) | {share(same_sides, k)} | at least 0.90 |
| the same side, of the claims whose English version counts a paper | {counted_share} | at least 0.85 |
| the same top {TOP} papers (as a set) | {share(same_tops, k)} | at least 0.80 |
| top-{TOP} papers shared, mean | {overlap / k if k else 0:.2f} of {TOP} | |

Seconds a claim (median): translation {secs["translate"]:.1f}, the translated claim's check {secs["asked"]:.1f}, the
English version's {secs["en"]:.1f} (on the machine as it was, shared or not: compare them within one run only)."""
