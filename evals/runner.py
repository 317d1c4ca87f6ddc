"""`claimtrace eval scifact`: claimtrace measured on SciFact claims (DESIGN.md §4, issue 3).

Two modes:

* ``--retrieval-only`` (no LLM, minutes): per claim the queries are just ``[claim]`` (no LLM decomposition); the
  graph's own ``retrieve`` and ``fuse`` node functions rank the documents. BM25 alone and dense-sentence alone are
  read from the same run (the per-retriever lists that ``fuse`` combines), so every figure has a baseline from the
  same machine and moment.
* full: per claim the whole graph (``agent.service.run_claim``) with the configured LLM. Each claim's outcome is
  appended to ``DIR/scifact_<split>_full.predictions.jsonl`` as soon as it is known; a rerun skips the claims
  already there (resumable), and all metrics are computed from that file, so they can be recomputed without
  rerunning anything.

Metrics (fractions in [0, 1] unless named otherwise; ``None`` where undefined):

* ``retrieval``: Recall@3/@5, MAP@5, nDCG@10 (``evals.retrieval_metrics``) over claims that have evidence,
  gold = their evidence docs. ``retrieval_cited``: the same with gold = ``cited_doc_ids`` (BEIR's definition, all
  claims). ``baselines``: both blocks for BM25 alone and dense alone (the claim query's own lists).
* ``abstract`` / ``sentence``: the official SciFact rules (``evals.scifact_metrics``). Predictions: every assessed
  abstract whose local label is not "No Evidence" -> ``to_scifact(label)``, with the sentence indices of its
  evidence sentences in the order the pipeline kept them.
* ``faithfulness``: ``citation_validity`` = valid citations / all citations the model wrote (before invalid ones
  were stripped); ``attributable_rate`` = answer sentences with status "supported" / all answer sentences.
* ``verifier``: ``macro_f1`` and ``accuracy`` come from ``evals/results/verifier_dev.json`` (written by
  ``evals/train_verifier.py``; ``None`` when absent). ``flag_precision`` / ``flag_recall`` use a proxy for the
  unknown truth: an answer sentence *should be flagged* when none of the evidence sentences it cites (valid
  citations only) is a gold rationale sentence of the claim, i.e. (doc_id, sentence_index) is in no gold rationale
  set. So an uncited sentence, and every sentence of an answer to an NEI claim, should be flagged. Precision =
  flagged and should / flagged; recall = flagged and should / should.
* ``cost``: seconds, LLM calls, prompt and completion tokens per claim (means).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE
from evals.retrieval_metrics import retrieval_report
from evals.scifact_metrics import PRF, DocPrediction, Label, Prediction, abstract_metrics, sentence_metrics

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = REPO_ROOT / "evals" / "results"
VERIFIER_RESULTS = RESULTS_DIR / "verifier_dev.json"
SPLITS = ("dev", "train")
RANK_DEPTH = 20  # documents of each ranking kept per claim in the predictions file (nDCG@10 needs 10)
MAX_CONSECUTIVE_FAILURES = 3  # the LLM is down, not slow: stop instead of timing out on every claim
# The retrieval tools whose single-query lists are the baselines (tool names of tools.search).
BASELINE_TOOLS = {"bm25": "bm25_search", "dense": "dense_sentence_search"}
RETRIEVAL_KEYS = ("recall@3", "recall@5", "map@5", "ndcg@10")


class EvalError(Exception):
    """A user-facing failure (missing data, index, model); `code` is the CLI exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class EvalOptions:
    split: str = "dev"
    limit: int | None = None
    out: Path = RESULTS_DIR
    retrieval_only: bool = False
    progress: bool = True

    @property
    def name(self) -> str:
        mode = "retrieval" if self.retrieval_only else "full"
        suffix = f"_limit{self.limit}" if self.limit is not None else ""
        return f"scifact_{self.split}_{mode}{suffix}"

    @property
    def predictions_path(self) -> Path:
        """Per-claim records. The full run's file is shared by runs with and without --limit (a record does not
        depend on the limit), so a larger run resumes a smaller one."""
        if self.retrieval_only:
            return self.out / f"{self.name}.predictions.jsonl"
        return self.out / f"scifact_{self.split}_full.predictions.jsonl"

    def command(self) -> str:
        parts = ["claimtrace", "eval", "scifact", "--split", self.split]
        if self.limit is not None:
            parts += ["--limit", str(self.limit)]
        if self.out.resolve() != RESULTS_DIR.resolve():
            parts += ["--out", _display_path(self.out)]
        if self.retrieval_only:
            parts.append("--retrieval-only")
        return " ".join(parts)


# --- gold ----------------------------------------------------------------------------------------------------


def load_claims(root: Path, split: str, limit: int | None = None) -> list[dict[str, Any]]:
    """The first ``limit`` claims of ``claims_<split>.jsonl`` in file order. Raises EvalError."""
    if split not in SPLITS:
        raise EvalError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}", EXIT_INPUT)
    path = root / f"claims_{split}.jsonl"
    if not path.is_file():
        raise EvalError(
            f"SciFact claims not found at {path} (set CORPUS_MIRROR to the folder holding claims_{split}.jsonl)",
            EXIT_UNAVAILABLE,
        )
    claims = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if any("evidence" not in c for c in claims):
        raise EvalError(f"{path} has claims without labels (the test split cannot be evaluated)", EXIT_INPUT)
    return claims[:limit] if limit is not None else claims


def evidence_qrels(claims: Iterable[Mapping[str, Any]]) -> dict[int, set[str]]:
    """claim id -> evidence doc ids (empty for NEI claims; retrieval_report skips those)."""
    return {int(c["id"]): {str(d) for d in c["evidence"]} for c in claims}


def cited_qrels(claims: Iterable[Mapping[str, Any]]) -> dict[int, set[str]]:
    """claim id -> cited_doc_ids (BEIR's qrels)."""
    return {int(c["id"]): {str(d) for d in c.get("cited_doc_ids", [])} for c in claims}


def gold_sentences(claim: Mapping[str, Any]) -> set[tuple[str, int]]:
    """(doc_id, sentence_index) of every sentence in any gold rationale set of the claim."""
    return {
        (str(doc_id), int(i))
        for doc_id, rationales in claim["evidence"].items()
        for r in rationales
        for i in r["sentences"]
    }


# --- from a pipeline state to a per-claim record ------------------------------------------------------------


def claim_query(state: Mapping[str, Any]) -> str:
    queries = state.get("queries") or []
    return next((q.text for q in queries if q.kind == "claim"), state["claim"])


def rankings_from_state(state: Mapping[str, Any], depth: int = RANK_DEPTH) -> dict[str, list[str]]:
    """The fused ranking (``candidates``) and, as baselines, each baseline tool's list for the claim query."""
    ranked = state.get("ranked_lists", {})
    query = claim_query(state)
    out = {"fused": [c.doc_id for c in state.get("candidates", [])][:depth]}
    for name, tool in BASELINE_TOOLS.items():
        out[name] = list(ranked.get(f"{tool}|{query}", []))[:depth]
    return out


def predictions_from_state(state: Mapping[str, Any]) -> Prediction:
    """SciFact predictions of one claim: assessed abstracts not labelled "No Evidence", with their evidence
    sentence indices in the order the pipeline kept them."""
    from agent.scoring import NO_EVIDENCE, to_scifact

    evidence = state.get("evidence", [])
    preds: Prediction = {}
    for a in state.get("assessments", []):
        label = to_scifact(a.label) if a.label != NO_EVIDENCE else "NEI"
        if label == "NEI":
            continue
        sentences: list[int] = []
        for ev in evidence:
            if ev.doc_id == a.doc_id and ev.sentence_index not in sentences:
                sentences.append(ev.sentence_index)
        preds[a.doc_id] = DocPrediction(label=cast(Label, label), sentences=sentences)
    return preds


def record_from_state(
    claim: Mapping[str, Any], state: Mapping[str, Any], seconds: float, config: Mapping[str, Any]
) -> dict[str, Any]:
    """Everything the metrics need about one claim, as plain JSON."""
    usage = state.get("usage")
    verdict = state.get("verdict")
    return {
        "id": int(claim["id"]),
        "claim": claim["claim"],
        "config": dict(config),
        "seconds": round(seconds, 3),
        "llm": usage.model_dump() if usage else {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0},
        "queries": [q.text for q in state.get("queries", [])],
        "rankings": rankings_from_state(state),
        "predictions": {
            d: {"label": p.label, "sentences": p.sentences} for d, p in predictions_from_state(state).items()
        },
        "assessments": [{"doc_id": a.doc_id, "label": a.label, "score": a.score} for a in state.get("assessments", [])],
        "evidence": [
            {"n": ev.n, "doc_id": ev.doc_id, "sentence_index": ev.sentence_index, "stance": ev.stance}
            for ev in state.get("evidence", [])
        ],
        "sentences": sentence_records(state.get("sentences", [])),
        "verdict": verdict.label if verdict else None,
        "timings": state.get("timings", {}),
    }


def sentence_records(sentences: Sequence[Any]) -> list[dict[str, Any]]:
    """Answer sentences as the predictions file keeps them."""
    return [
        {
            "text": s.text,
            "citations": s.citations,
            "invalid_citations": s.invalid_citations,
            "status": s.status,
            "flagged": s.flagged,
        }
        for s in sentences
    ]


# --- metrics from records -----------------------------------------------------------------------------------


def should_flag(
    sentence: Mapping[str, Any], evidence_by_n: Mapping[int, tuple[str, int]], gold: set[tuple[str, int]]
) -> bool:
    """The flag proxy: True when no (valid) citation of the sentence points at a gold rationale sentence."""
    cited = [evidence_by_n[n] for n in sentence.get("citations", []) if n in evidence_by_n]
    return not any(c in gold for c in cited)


def flag_counts(record: Mapping[str, Any], claim: Mapping[str, Any]) -> tuple[int, int, int]:
    """(flagged and should be, flagged, should be flagged) over the answer sentences of one claim."""
    evidence_by_n = {int(e["n"]): (str(e["doc_id"]), int(e["sentence_index"])) for e in record["evidence"]}
    gold = gold_sentences(claim)
    both = flagged = should = 0
    for s in record["sentences"]:
        f, sh = bool(s["flagged"]), should_flag(s, evidence_by_n, gold)
        both += f and sh
        flagged += f
        should += sh
    return both, flagged, should


def _ratio(num: float, denom: float) -> float | None:
    return num / denom if denom else None


def faithfulness_metrics(sentences: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """citation_validity: valid citations / all the model wrote (before invalid ones were stripped);
    attributable_rate: sentences the verifier finds supported / all answer sentences."""
    valid = sum(len(s["citations"]) for s in sentences)
    written = valid + sum(len(s["invalid_citations"]) for s in sentences)
    return {
        "citation_validity": _ratio(valid, written),
        "attributable_rate": _ratio(sum(s["status"] == "supported" for s in sentences), len(sentences)),
    }


def _prf(p: PRF) -> dict[str, float]:
    return {"precision": p.precision, "recall": p.recall, "f1": p.f1}


def _retrieval(runs: Mapping[int, Sequence[str]], qrels: Mapping[int, set[str]]) -> dict[str, float | None]:
    if not any(qrels.values()):
        return dict.fromkeys(RETRIEVAL_KEYS)
    return dict(retrieval_report(runs, qrels))


def retrieval_metrics(records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``retrieval``, ``retrieval_cited`` and ``baselines`` from the rankings of the records."""
    ev_q, cited_q = evidence_qrels(claims), cited_qrels(claims)
    by_id = {int(r["id"]): r for r in records}

    def block(name: str) -> dict[str, Any]:
        runs = {i: r["rankings"][name] for i, r in by_id.items()}
        return {"retrieval": _retrieval(runs, ev_q), "retrieval_cited": _retrieval(runs, cited_q)}

    fused = block("fused")
    return {
        "retrieval": fused["retrieval"],
        "retrieval_cited": fused["retrieval_cited"],
        "baselines": {name: block(name) for name in BASELINE_TOOLS},
    }


def verifier_dev_metrics(path: Path = VERIFIER_RESULTS) -> dict[str, float | None]:
    """macro-F1 and accuracy of the verifier on its SciFact-dev sentence set, as its training script wrote them."""
    try:
        dev = json.loads(path.read_text()).get("dev", {})
    except (OSError, json.JSONDecodeError, AttributeError):
        return {"macro_f1": None, "accuracy": None}
    return {"macro_f1": dev.get("macro_f1"), "accuracy": dev.get("accuracy")}


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def full_metrics(
    records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]], verifier_results: Path = VERIFIER_RESULTS
) -> dict[str, Any]:
    """Every metric group of the full run, from per-claim records (one per claim of ``claims``)."""
    by_id = {int(r["id"]): r for r in records}
    claims = [c for c in claims if int(c["id"]) in by_id]
    preds = {
        int(c["id"]): {
            d: DocPrediction(label=p["label"], sentences=list(p["sentences"]))
            for d, p in by_id[int(c["id"])]["predictions"].items()
        }
        for c in claims
    }
    recs = [by_id[int(c["id"])] for c in claims]
    sentences = [s for r in recs for s in r["sentences"]]
    counts = [flag_counts(by_id[int(c["id"])], c) for c in claims]
    both, flagged, should = (sum(x[k] for x in counts) for k in range(3))
    abstract = abstract_metrics(claims, preds) if claims else None
    sentence = sentence_metrics(claims, preds) if claims else None
    return {
        **retrieval_metrics(recs, claims),
        "abstract": {k: _prf(v) for k, v in abstract.items()} if abstract else _empty_abstract(),
        "sentence": {k: _prf(v) for k, v in sentence.items()} if sentence else _empty_sentence(),
        "verifier": {
            **verifier_dev_metrics(verifier_results),
            "flag_precision": _ratio(both, flagged),
            "flag_recall": _ratio(both, should),
        },
        "faithfulness": faithfulness_metrics(sentences),
        "cost": _cost(recs),
    }


def retrieval_only_metrics(records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The same keys as the full run; what retrieval alone cannot measure is None."""
    return {
        **retrieval_metrics(records, claims),
        "abstract": _empty_abstract(),
        "sentence": _empty_sentence(),
        # the verifier is not run here; its dev figures belong to the full run and verifier_dev.json
        "verifier": {"macro_f1": None, "accuracy": None, "flag_precision": None, "flag_recall": None},
        "faithfulness": {"citation_validity": None, "attributable_rate": None},
        "cost": _cost(records),
    }


def _empty_prf() -> dict[str, None]:
    return {"precision": None, "recall": None, "f1": None}


def _empty_abstract() -> dict[str, Any]:
    return {"label_only": _empty_prf(), "label_rationale": _empty_prf()}


def _empty_sentence() -> dict[str, Any]:
    return {"selection": _empty_prf(), "selection_label": _empty_prf()}


def _cost(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    return {
        "seconds_per_claim": _mean([float(r["seconds"]) for r in records]),
        "llm_calls_per_claim": _mean([float(r["llm"]["calls"]) for r in records]),
        "prompt_tokens_per_claim": _mean([float(r["llm"]["prompt_tokens"]) for r in records]),
        "completion_tokens_per_claim": _mean([float(r["llm"]["completion_tokens"]) for r in records]),
    }


# --- the predictions file (resumable) ----------------------------------------------------------------------


def read_records(path: Path) -> list[dict[str, Any]]:
    """Complete records of a predictions file. A line cut by an interrupted run is dropped (and the file
    repaired), so that claim is simply run again."""
    if not path.is_file():
        return []
    text = path.read_text()
    records: list[dict[str, Any]] = []
    bad = False
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            bad = True
    if bad or (text and not text.endswith("\n")):
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return records


def resume_records(path: Path, config: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """Records already computed under the same configuration, by claim id. Raises EvalError on a mismatch."""
    done: dict[int, dict[str, Any]] = {}
    for rec in read_records(path):
        if rec.get("config") != dict(config):
            raise EvalError(
                f"{path} holds predictions made with another configuration ({rec.get('config')} vs {dict(config)}); "
                "use another --out or delete that file",
                EXIT_INPUT,
            )
        done[int(rec["id"])] = rec
    return done


# --- running -----------------------------------------------------------------------------------------------


def git_commit(repo: Path = REPO_ROOT) -> str | None:
    """HEAD's commit, read from .git without running git; None outside a checkout."""
    git = repo / ".git"
    try:
        if git.is_file():  # worktree: "gitdir: <path>"
            git = (repo / git.read_text().split(":", 1)[1].strip()).resolve()
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head or None
        ref = head.split(":", 1)[1].strip()
        common = git
        if (git / "commondir").is_file():
            common = (git / (git / "commondir").read_text().strip()).resolve()
        for base in (git, common):
            if (base / ref).is_file():
                return (base / ref).read_text().strip()
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                if line.endswith(" " + ref):
                    return line.split()[0]
    except (OSError, IndexError):
        return None
    return None


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _open_index(settings: Any) -> Any:
    from tools.index import CorpusIndex, IndexMissingError

    try:
        return CorpusIndex(settings.index_dir, settings.chroma_url)
    except IndexMissingError as e:
        raise EvalError(str(e), EXIT_UNAVAILABLE) from e


def _load_verifier() -> Any:
    from tools.verifier import VerifierArtifactError, get_verifier

    try:
        return get_verifier()
    except VerifierArtifactError as e:
        raise EvalError(str(e), EXIT_UNAVAILABLE) from e


def _warn_missing_gold(index: Any, claims: Sequence[Mapping[str, Any]]) -> None:
    gold = {str(d) for c in claims for d in [*c["evidence"], *c.get("cited_doc_ids", [])]}
    missing = gold - set(index.docs)
    if missing:
        print(
            f"warning: {len(missing)} of {len(gold)} gold documents are not in the index at "
            f"{index.manifest.get('corpus_file')} ({index.manifest.get('docs')} docs): a partial index lowers recall",
            file=sys.stderr,
        )


def retrieve_claim(claim: str, deps: Any) -> dict[str, Any]:
    """Retrieval as the graph does it, with the claim as the only query: the graph's retrieve, fuse and rerank
    nodes."""
    from langgraph.runtime import Runtime

    from agent.nodes.fuse import fuse
    from agent.nodes.rerank import rerank
    from agent.nodes.retrieve import retrieve
    from agent.state import Query

    runtime: Runtime[Any] = Runtime(context=deps)
    state: dict[str, Any] = {"claim": claim, "queries": [Query(text=claim, kind="claim")]}
    timings: dict[str, float] = {}
    for node in (retrieve, fuse, rerank):
        state.update(node(state, runtime))
        timings.update(state.pop("timings", {}))
    state["timings"] = timings
    return state


def _progress(items: Sequence[Any], enabled: bool, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="claim", disable=not enabled, mininterval=1.0, dynamic_ncols=True)


def run_retrieval_only(opts: EvalOptions, settings: Any, claims: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    from agent.scripted import ScriptedChatModel
    from agent.state import Deps

    index = _open_index(settings)
    _warn_missing_gold(index, claims)
    # No LLM is called in this mode; the scripted model only fills the Deps slot. The verifier reranks.
    verifier = _load_verifier() if settings.rerank_top else None
    deps = Deps(settings=settings, llm=ScriptedChatModel(rules=[]), index=index, verifier=verifier)
    config = _config(settings, index, retrieval_only=True, verifier=verifier)
    retrieve_claim("warm-up", deps)  # first embedder call loads the model: not part of any claim's time
    records = []
    for claim in _progress(claims, opts.progress, f"scifact {opts.split} retrieval"):
        t0 = time.perf_counter()
        state = retrieve_claim(claim["claim"], deps)
        records.append(
            {
                "id": int(claim["id"]),
                "claim": claim["claim"],
                "config": config,
                "seconds": round(time.perf_counter() - t0, 4),
                "llm": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0},
                "rankings": rankings_from_state(state),
            }
        )
    return records


def verifier_id(verifier: Any) -> str:
    """The trained artifact's checksum (a retrained verifier must not be mixed into a resumed run), or the class
    name of a stand-in."""
    from tools.files import sha256_file
    from tools.verifier import ARTIFACT_DIR, DELTA_FILE, Verifier

    if isinstance(verifier, Verifier) and (ARTIFACT_DIR / DELTA_FILE).is_file():
        return f"sha256:{sha256_file(ARTIFACT_DIR / DELTA_FILE)[:16]}"
    return type(verifier).__name__


def _config(settings: Any, index: Any, retrieval_only: bool, verifier: Any = None) -> dict[str, Any]:
    """What the per-claim records depend on; a resumed run must match it."""
    from tools.search import RRF_K

    provider = settings.resolved_provider()
    if retrieval_only:
        llm = None
    elif provider == "embedded":
        from agent.llm import GGUF_NAME

        llm = f"embedded:{GGUF_NAME}"
    elif provider == "scripted":
        llm = f"scripted:{settings.llm_script}"
    else:
        llm = f"{provider}:{settings.llm_model}"
    cfg: dict[str, Any] = {
        "llm": llm,
        "index": index.manifest.get("fingerprint"),
        "retrieval_depth": settings.retrieval_depth,
        "rrf_k": RRF_K,
        "rerank": [settings.rerank_top, settings.rerank_sentences, settings.rerank_alpha],
    }
    if settings.rerank_top or not retrieval_only:
        cfg["verifier"] = verifier_id(verifier)
    if not retrieval_only:
        cfg.update({"top_docs": settings.top_docs, "sentences_per_doc": settings.sentences_per_doc})
        if settings.stance_min_prob or settings.labelled_docs:  # absent before these rules existed: old runs resume
            cfg["labels"] = [settings.stance_min_prob, settings.labelled_docs]
    return cfg


def run_full(
    opts: EvalOptions, settings: Any, claims: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[int]]:
    """Run the graph on every claim not yet in the predictions file; returns (records of ``claims``, failed ids)."""
    from agent.graph import build_graph
    from agent.llm import LLMUnavailableError
    from agent.service import load_deps, run_claim
    from tools.index import IndexMissingError
    from tools.verifier import VerifierArtifactError

    try:
        deps = load_deps(settings)
    except (IndexMissingError, LLMUnavailableError, VerifierArtifactError) as e:
        raise EvalError(str(e), EXIT_UNAVAILABLE) from e
    _warn_missing_gold(deps.index, claims)
    config = _config(settings, deps.index, retrieval_only=False, verifier=deps.verifier)
    path = opts.predictions_path
    path.parent.mkdir(parents=True, exist_ok=True)
    done = resume_records(path, config)
    todo = [c for c in claims if int(c["id"]) not in done]
    if done and todo:
        print(f"resuming: {len(claims) - len(todo)} of {len(claims)} claims already in {path}", file=sys.stderr)
    graph = build_graph()
    failed: list[int] = []
    consecutive = 0
    with path.open("a", encoding="utf-8") as fh:
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
                    raise EvalError(
                        f"{consecutive} claims in a row failed ({e}); {len(done)} claims are saved in {path}: "
                        "rerun the same command to resume",
                        EXIT_UNAVAILABLE,
                    ) from e
                continue
            consecutive = 0
            rec = record_from_state(claim, state, time.perf_counter() - t0, config)
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            fh.flush()
            done[rec["id"]] = rec
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(s_per_claim=f"{rec['seconds']:.1f}")
    return [done[int(c["id"])] for c in claims if int(c["id"]) in done], failed


def run_info(opts: EvalOptions, settings: Any, claims: Sequence[Mapping[str, Any]], evaluated: int) -> dict[str, Any]:
    from tools.index import read_manifest
    from tools.search import RRF_K

    manifest = read_manifest(settings.index_dir) or {}
    return {
        "name": opts.name,
        "command": opts.command(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "split": opts.split,
        "limit": opts.limit,
        "mode": "retrieval-only" if opts.retrieval_only else "full",
        "claims": len(claims),
        "claims_evaluated": evaluated,
        "claims_with_evidence": sum(bool(c["evidence"]) for c in claims),
        "llm": None if opts.retrieval_only else _config_llm(settings),
        "index": {k: manifest.get(k) for k in ("fingerprint", "model", "index_version", "docs", "sentences")},
        "retrieval": {
            "queries": "claim only" if opts.retrieval_only else "claim + LLM questions + opposite claim",
            "retrievers": sorted(BASELINE_TOOLS.values()),
            "depth": settings.retrieval_depth,
            "fusion": f"reciprocal rank fusion, k={RRF_K}",
            "rerank": (
                f"verifier reads the {settings.rerank_sentences or 'all'} claim-closest sentences of the top "
                f"{settings.rerank_top} abstracts, fused weight {settings.rerank_alpha}"
                if settings.rerank_top
                else "off"
            ),
        },
        "evidence": None
        if opts.retrieval_only
        else (
            f"sentences of the top {settings.top_docs} abstracts, {settings.sentences_per_doc} per abstract; "
            f"stance probability >= {settings.stance_min_prob or 'argmax'}; "
            f"labelled abstracts: {settings.labelled_docs or 'all'} (strongest first)"
        ),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }


def _config_llm(settings: Any) -> str:
    provider = settings.resolved_provider()
    if provider == "embedded":
        from agent.llm import GGUF_NAME

        return f"embedded {GGUF_NAME}"
    return f"{provider} {settings.llm_model if provider == 'openai' else ''}".strip()


def evaluate(opts: EvalOptions) -> tuple[dict[str, Any], list[int]]:
    """Run the evaluation and compute every metric; returns (result JSON, ids of claims that failed)."""
    from agent.settings import get_settings

    if opts.limit is not None and opts.limit < 1:
        raise EvalError(f"--limit must be at least 1, not {opts.limit}", EXIT_INPUT)
    # SciFact is judged against its own corpus: never search live sources or add their papers here
    settings = get_settings().model_copy(update={"sources": "local"})
    claims = load_claims(settings.corpus_mirror, opts.split, opts.limit)
    if opts.retrieval_only:
        records = run_retrieval_only(opts, settings, claims)
        metrics = retrieval_only_metrics(records, claims)
        failed: list[int] = []
    else:
        records, failed = run_full(opts, settings, claims)
        metrics = full_metrics(records, claims)
    result = {"run": run_info(opts, settings, claims, len(records)), **metrics}
    if opts.retrieval_only:
        opts.out.mkdir(parents=True, exist_ok=True)
        with opts.predictions_path.open("w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return result, failed


def write_outputs(result: Mapping[str, Any], out: Path, name: str) -> list[Path]:
    """DIR/<name>.json, .md and .png (the plot is skipped with a warning when matplotlib is missing)."""
    from evals import report

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.json", out / f"{name}.md"]
    paths[0].write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    paths[1].write_text(report.markdown(result))
    png = out / f"{name}.png"
    try:
        report.plot(result, png)
        paths.append(png)
    except ImportError:
        print("warning: matplotlib is not installed; no plot written", file=sys.stderr)
    return paths
