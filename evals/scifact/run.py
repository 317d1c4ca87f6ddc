"""Running an evaluation: the options, what a resumed run must match, the two run modes, and the outputs.

* ``--retrieval-only`` (no LLM, minutes): per claim the only query is the claim itself; the retrieval stage
  (retrieve -> fuse -> rerank) ranks the documents. BM25 alone and dense-sentence alone are read from the same run
  (the per-retriever lists that fusion combines), so every figure has a baseline from the same machine and moment.
* ``--judgement-only``: per claim the graph through the judged verdict (retrieval, the verifier's gate and labels,
  the LLM's reading of direction), without the answer: the labels and verdicts the product gives, at a fraction of
  the time; the answer's metrics (flags, faithfulness) are left empty.
* full: per claim the whole graph with the configured LLM. Each claim's record is appended to
  ``DIR/scifact_<split>_full.predictions.jsonl.gz`` (gzip-compressed JSONL) as soon as it is known; a rerun skips the
  claims already there (resumable), and all metrics are computed from that file.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError, unavailable_parts
from agent.settings.app import Settings
from evals.experiments import git_commit
from evals.scifact import report
from evals.scifact.data import REPO_ROOT, RESULTS_DIR, load_claims
from evals.scifact.metrics import full_metrics, retrieval_only_metrics
from evals.scifact.records import (
    BASELINE_TOOLS,
    PREDICTIONS_SUFFIX,
    llm_name,
    make_record,
    open_records,
    resume_records,
    run_config,
    write_records,
)

MAX_CONSECUTIVE_FAILURES = 3  # the LLM is down, not slow: stop instead of timing out on every claim


@dataclass
class EvalOptions:
    split: str = "dev"
    limit: int | None = None
    out: Path = RESULTS_DIR
    retrieval_only: bool = False
    judgement_only: bool = False
    progress: bool = True
    preset: str | None = None  # None: the environment's settings (and its PRESET)

    @property
    def name(self) -> str:
        mode = "retrieval" if self.retrieval_only else "judgement" if self.judgement_only else "full"
        preset = f"_{self.preset}" if self.preset and self.preset != "default" else ""
        suffix = f"_limit{self.limit}" if self.limit is not None else ""
        return f"scifact_{self.split}_{mode}{preset}{suffix}"

    @property
    def predictions_path(self) -> Path:
        """Per-claim records. The full run's file is shared by runs with and without --limit (a record does not
        depend on the limit), so a larger run resumes a smaller one."""
        if self.retrieval_only:
            return self.out / f"{self.name}{PREDICTIONS_SUFFIX}"
        preset = f"_{self.preset}" if self.preset and self.preset != "default" else ""
        mode = "judgement" if self.judgement_only else "full"
        return self.out / f"scifact_{self.split}_{mode}{preset}{PREDICTIONS_SUFFIX}"

    def command(self) -> str:
        parts = ["claimtrace", "eval", "scifact", "--split", self.split]
        if self.limit is not None:
            parts += ["--limit", str(self.limit)]
        if self.preset:
            parts += ["--preset", self.preset]
        if self.out.resolve() != RESULTS_DIR.resolve():
            parts += ["--out", _display_path(self.out)]
        if self.retrieval_only:
            parts.append("--retrieval-only")
        if self.judgement_only:
            parts.append("--judgement-only")
        return " ".join(parts)


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _progress(items: Sequence[Any], enabled: bool, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="claim", disable=not enabled, mininterval=1.0, dynamic_ncols=True)


def _warn_missing_gold(index: Any, claims: Sequence[Mapping[str, Any]]) -> None:
    gold = {str(d) for c in claims for d in [*c["evidence"], *c.get("cited_doc_ids", [])]}
    missing = gold - set(index.docs)
    if missing:
        print(
            f"warning: {len(missing)} of {len(gold)} gold documents are not in the index at "
            f"{index.manifest.get('corpus_file')} ({index.manifest.get('docs')} docs): a partial index lowers recall",
            file=sys.stderr,
        )


def run_retrieval_only(
    opts: EvalOptions, settings: Settings, claims: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    from agent import stages
    from agent.llm.scripted import ScriptedChatModel
    from agent.state import Deps, Query
    from tools.index.local import CorpusIndex
    from tools.models.verifier import get_verifier

    with unavailable_parts():
        index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
        # No LLM is called in this mode; the scripted model only fills the Deps slot. The verifier reranks.
        verifier = get_verifier() if settings.retrieval.rerank_top else None
    _warn_missing_gold(index, claims)
    deps = Deps(settings=settings, llm=ScriptedChatModel(rules=[]), index=index, verifier=verifier)  # type: ignore[arg-type]
    config = run_config(settings, index, retrieval_only=True, verifier=verifier)

    def retrieve(text: str) -> Any:
        return stages.retrieval(text, deps, queries=[Query(text=text, kind="claim")])

    retrieve("warm-up")  # first embedder call loads the model: not part of any claim's time
    records = []
    for claim in _progress(claims, opts.progress, f"scifact {opts.split} retrieval"):
        t0 = time.perf_counter()
        state = retrieve(claim["claim"])
        records.append(make_record(int(claim["id"]), state, time.perf_counter() - t0, config))
    return records


def run_full(
    opts: EvalOptions, settings: Settings, claims: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[int]]:
    """Run the graph on every claim not yet in the predictions file; returns (records of ``claims``, failed ids)."""
    from agent.graph import build_graph
    from agent.llm.client import LLMUnavailableError
    from agent.service import load_deps, run_claim

    with unavailable_parts():
        deps = load_deps(settings)
    _warn_missing_gold(deps.index, claims)
    config = run_config(settings, deps.index, retrieval_only=False, verifier=deps.verifier)
    path = opts.predictions_path
    path.parent.mkdir(parents=True, exist_ok=True)
    done = resume_records(path, config)
    todo = [c for c in claims if int(c["id"]) not in done]
    if done and todo:
        print(f"resuming: {len(claims) - len(todo)} of {len(claims)} claims already in {path}", file=sys.stderr)
    if not todo:  # opening the file to append would add an empty gzip member to it
        return [done[int(c["id"])] for c in claims], []
    # through the final verdict: the direction, and the search questions or rounds when the settings ask for them
    graph = build_graph(last="reformulate") if opts.judgement_only else build_graph()
    failed: list[int] = []
    consecutive = 0
    with open_records(path, "a") as fh:
        bar = _progress(todo, opts.progress, f"scifact {opts.split} full")
        for claim in bar:
            t0 = time.perf_counter()
            try:
                state = run_claim(" ".join(claim["claim"].split()), deps, graph)
            except LLMUnavailableError as e:
                failed.append(int(claim["id"]))
                consecutive += 1
                print(f"\nwarning: claim {claim['id']} failed: {e}", file=sys.stderr)
                if consecutive >= MAX_CONSECUTIVE_FAILURES:
                    raise CliError(
                        f"{consecutive} claims in a row failed ({e}); {len(done)} claims are saved in {path}: "
                        "rerun the same command to resume",
                        EXIT_UNAVAILABLE,
                    ) from e
                continue
            consecutive = 0
            rec = make_record(int(claim["id"]), state, time.perf_counter() - t0, config)
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            fh.flush()  # a gzip sync point: an interrupted run keeps every record written so far
            done[rec["id"]] = rec
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(s_per_claim=f"{rec['seconds']:.1f}")
    return [done[int(c["id"])] for c in claims if int(c["id"]) in done], failed


def run_info(
    opts: EvalOptions, settings: Settings, claims: Sequence[Mapping[str, Any]], evaluated: int
) -> dict[str, Any]:
    from tools.index.manifest import read_manifest

    manifest = read_manifest(settings.stores.index_dir) or {}
    r, j = settings.retrieval, settings.judge
    return {
        "name": opts.name,
        "command": opts.command(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "split": opts.split,
        "limit": opts.limit,
        "mode": "retrieval-only" if opts.retrieval_only else "judgement-only" if opts.judgement_only else "full",
        "claims": len(claims),
        "claims_evaluated": evaluated,
        "claims_with_evidence": sum(bool(c["evidence"]) for c in claims),
        "llm": None if opts.retrieval_only else llm_name(settings).replace(":", " ", 1),
        "index": {k: manifest.get(k) for k in ("fingerprint", "model", "index_version", "docs", "sentences")},
        "retrieval": {
            "queries": "claim only" if opts.retrieval_only
            else "claim + opposite claim" + (" + LLM questions" if r.llm_questions else ""),
            "retrievers": sorted(BASELINE_TOOLS.values()),
            "depth": r.depth,
            "fusion": f"reciprocal rank fusion, k={r.rrf_k}",
            "rerank": (
                f"verifier reads the {r.rerank_sentences or 'all'} claim-closest sentences of the top "
                f"{r.rerank_top} abstracts, fused weight {r.rerank_alpha}"
                if r.rerank_top
                else "off"
            ),
        },
        "evidence": None
        if opts.retrieval_only
        else (
            f"sentences of the top {j.top_docs} abstracts, {j.sentences_per_doc} per abstract; "
            f"stance probability >= {j.stance_min_prob or 'argmax'}; "
            f"labelled abstracts: {j.labelled_docs or 'all'} (strongest first); "
            f"no label below verdict confidence {j.min_confidence}; "
            f"evidence gate {'on' if j.gate else 'off'}; direction read by {j.direction}"
        ),
        "preset": opts.preset or "default",
        "settings": settings.public_dump(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }


def eval_settings(opts: EvalOptions) -> Settings:
    """The settings of the run: the environment's, with the preset applied; never live sources (SciFact is judged
    against its own corpus, and a live paper must not enter it)."""
    from agent.settings.app import get_settings, load_preset

    settings = load_preset(opts.preset) if opts.preset else get_settings()
    return settings.with_values(live={"sources": "local"})


def evaluate(opts: EvalOptions) -> tuple[dict[str, Any], list[int]]:
    """Run the evaluation and compute every metric; returns (result JSON, ids of claims that failed)."""
    if opts.limit is not None and opts.limit < 1:
        raise CliError(f"--limit must be at least 1, not {opts.limit}", EXIT_INPUT)
    settings = eval_settings(opts)
    claims = load_claims(settings.stores.corpus_mirror, opts.split, opts.limit)
    if opts.retrieval_only:
        records = run_retrieval_only(opts, settings, claims)
        metrics = retrieval_only_metrics(records, claims)
        failed: list[int] = []
    else:
        records, failed = run_full(opts, settings, claims)
        metrics = full_metrics(records, claims, answered=not opts.judgement_only)
    result = {"run": run_info(opts, settings, claims, len(records)), **metrics}
    if opts.retrieval_only:
        opts.out.mkdir(parents=True, exist_ok=True)
        write_records(opts.predictions_path, records)
    return result, failed


def write_outputs(result: Mapping[str, Any], out: Path, name: str) -> list[Path]:
    """DIR/<name>.json, .md and .png; a full run also DIR/<name>_reliability.png (the verdict confidence)."""
    from evals.reliability import plot_reliability

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.json", out / f"{name}.md", out / f"{name}.png"]
    paths[0].write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    paths[1].write_text(report.markdown(result))
    report.plot(result, paths[2])
    calibration = result.get("calibration")
    if calibration:
        paths.append(out / f"{name}_reliability.png")
        run = result.get("run", {})
        plot_reliability(
            {"verdict confidence": calibration["verdict_reliability"]},
            paths[-1],
            f"SciFact {run.get('split', '?')}: verdict confidence, {run.get('claims_evaluated', '?')} claims",
        )
    return paths
