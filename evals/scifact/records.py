"""Per-claim records of an evaluation run, one JSON object per line of `<name>.predictions.jsonl.gz` (gzip-compressed
JSONL):

    {"id", "config", "seconds", "rankings", "predictions", "result"}

`result` is the check's `CheckResult` dump (the `ask --json` object); `rankings` are the fused ranking and the
baseline retrievers' lists for the claim query (the state holds them, the result does not); `predictions` are the
SciFact predictions read off the result; `config` is what a resumed run must match. The metrics read only these
records, so a finished run can be re-measured without running anything."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TextIO, cast

from agent.errors import EXIT_INPUT, CliError
from agent.judge.scoring import NO_EVIDENCE, UNDECIDED, to_scifact
from agent.result import CheckResult
from agent.settings.app import Settings
from agent.state import Evidence, SourceAssessment, Verdict
from evals.scifact.data import REPO_ROOT
from evals.scifact.scifact_metrics import DocPrediction, Label, Prediction

# The source a full run's answers depend on beyond its settings: a resumed run (possibly in a later session) must be
# made by the same code and prompts, so their hash is part of the config it must match. The verifier's weights are
# identified by verifier_id; its config (temperature, premise) is read here with the code.
PIPELINE_SOURCES = ("agent", "tools", "prompts")
PIPELINE_SUFFIXES = {".py", ".md", ".json"}
PIPELINE_EXCLUDED = {"MODEL_CARD.md"}
RANK_DEPTH = 20  # documents of each ranking kept per claim (nDCG@10 needs 10)
# The retrieval tools whose single-query lists are the baselines (tool names of tools.index.search).
BASELINE_TOOLS = {"bm25": "bm25_search", "dense": "dense_sentence_search"}
PREDICTIONS_SUFFIX = ".predictions.jsonl.gz"  # what a run writes: <name> + this


def rankings_from_state(state: Mapping[str, Any], depth: int = RANK_DEPTH) -> dict[str, list[str]]:
    """The fused ranking (``candidates``) and, as baselines, each baseline tool's list for the claim query."""
    ranked = state.get("ranked_lists", {})
    query = next((q.text for q in state.get("queries", []) if q.kind == "claim"), state["claim"])
    out = {"fused": [c.doc_id for c in state.get("candidates", [])][:depth]}
    for name, tool in BASELINE_TOOLS.items():
        out[name] = list(ranked.get(f"{tool}|{query}", []))[:depth]
    return out


def scifact_predictions(
    evidence: Sequence[Evidence], assessments: Sequence[SourceAssessment], verdict: Verdict | None = None
) -> Prediction:
    """SciFact predictions of one claim: assessed abstracts not labelled "No Evidence", with their evidence
    sentence indices in the order the pipeline kept them; none when the verdict abstains ("Cannot decide")."""
    preds: Prediction = {}
    if verdict is not None and verdict.label == UNDECIDED:
        return preds
    for a in assessments:
        label = to_scifact(a.label) if a.label != NO_EVIDENCE else "NEI"
        if label == "NEI":
            continue
        sentences: list[int] = []
        for ev in evidence:
            if ev.doc_id == a.doc_id and ev.sentence_index not in sentences:
                sentences.append(ev.sentence_index)
        preds[a.doc_id] = DocPrediction(label=cast(Label, label), sentences=sentences)
    return preds


def make_record(claim_id: int, state: Mapping[str, Any], seconds: float, config: Mapping[str, Any]) -> dict[str, Any]:
    """The record of one claim's run (a retrieval-only state gives a result without sources or answer)."""
    result = CheckResult.from_state(state)
    preds = scifact_predictions(result.sources, result.assessments, result.verdict)
    return {
        "id": claim_id,
        "config": dict(config),
        "seconds": round(seconds, 4),
        "rankings": rankings_from_state(state),
        "predictions": {d: {"label": p.label, "sentences": p.sentences} for d, p in preds.items()},
        "result": result.model_dump(mode="json"),
    }


def verifier_id(verifier: Any) -> str:
    """The trained artifact's checksum (a retrained verifier must not be mixed into a resumed run), or the class
    name of a stand-in."""
    from tools.files import sha256_file
    from tools.models.verifier import ARTIFACT_DIR, DELTA_FILE, Verifier

    if isinstance(verifier, Verifier) and (ARTIFACT_DIR / DELTA_FILE).is_file():
        return f"sha256:{sha256_file(ARTIFACT_DIR / DELTA_FILE)[:16]}"
    return type(verifier).__name__


def llm_name(settings: Settings) -> str:
    provider = settings.llm.resolved_provider()
    if provider == "embedded":
        from agent.llm.client import GGUF_NAME

        return f"embedded:{GGUF_NAME}"
    if provider == "scripted":
        return f"scripted:{settings.llm.script}"
    return f"{provider}:{settings.llm.model}"


def code_fingerprint(root: Path = REPO_ROOT) -> str:
    """A short hash of the pipeline's source files (path and content) under ``root``'s agent/, tools/ and prompts/."""
    h = hashlib.sha256()
    files = sorted(
        p
        for top in PIPELINE_SOURCES
        for p in (root / top).rglob("*")
        if p.is_file()
        and p.suffix in PIPELINE_SUFFIXES
        and p.name not in PIPELINE_EXCLUDED
        and "__pycache__" not in p.parts
    )
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def run_config(settings: Settings, index: Any, retrieval_only: bool, verifier: Any = None) -> dict[str, Any]:
    """What the per-claim records depend on; a resumed run must match it."""
    r, j = settings.retrieval, settings.judge
    cfg: dict[str, Any] = {
        "llm": None if retrieval_only else llm_name(settings),
        "index": index.manifest.get("fingerprint"),
        "retrieval_depth": r.depth,
        "rrf_k": r.rrf_k,
        "rerank": [r.rerank_top, r.rerank_sentences, r.rerank_alpha],
    }
    if r.rerank_top or not retrieval_only:
        cfg["verifier"] = verifier_id(verifier)
    if not retrieval_only:
        cfg["code"] = code_fingerprint()
        cfg.update({"top_docs": j.top_docs, "sentences_per_doc": j.sentences_per_doc})
        cfg["labels"] = [j.stance_min_prob, j.labelled_docs, j.min_confidence]
        cfg["judge"] = [j.direction, j.gate]
    return cfg


def open_records(path: Path, mode: Literal["r", "w", "a"]) -> TextIO:
    """A predictions file opened as UTF-8 text: through gzip when its name ends in ``.gz`` (what runs write), plain
    otherwise (a file a run wrote uncompressed, or one made by hand). Appending to a gzip file adds a gzip member,
    which reading joins to the ones before it."""
    if path.suffix == ".gz":
        return cast(TextIO, gzip.open(path, f"{mode}t", encoding="utf-8"))
    return path.open(mode, encoding="utf-8")


def write_records(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """``path`` holds ``records``, one JSON object per line (gzip-compressed when its name ends in ``.gz``)."""
    with open_records(path, "w") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def replay_records(path: Path) -> list[dict[str, Any]]:
    """The records of a finished run that a study replays: SystemExit with one line when the file is missing or holds
    none (an old command naming a file that was renamed, e.g. to ``.predictions.jsonl.gz``)."""
    if not path.is_file():
        raise SystemExit(f"{path}: no such predictions file (runs write <name>{PREDICTIONS_SUFFIX})")
    records = read_records(path)
    if not records:
        raise SystemExit(f"{path}: holds no complete record to replay")
    return records


def read_records(path: Path) -> list[dict[str, Any]]:
    """Complete records of a predictions file, gzip-compressed or plain. A line cut by an interrupted run is dropped,
    and so is the unfinished end of a gzip stream it left (a run flushes each record, so every record before it is
    readable); the file is then repaired, so that claim is simply run again."""
    if not path.is_file():
        return []
    lines: list[str] = []
    cut = False
    try:
        with open_records(path, "r") as fh:
            for line in fh:
                lines.append(line)
    except EOFError:  # a gzip stream that ends before its end-of-stream marker
        cut = True
    records: list[dict[str, Any]] = []
    bad = cut or bool(lines and not lines[-1].endswith("\n"))
    for line in lines:
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            bad = True
    if bad:
        write_records(path, records)
    return records


def resume_records(path: Path, config: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """Records already computed under the same configuration, by claim id. Raises CliError on a mismatch."""
    done: dict[int, dict[str, Any]] = {}
    for rec in read_records(path):
        if rec.get("config") != dict(config):
            raise CliError(
                f"{path} holds predictions made with another configuration ({rec.get('config')} vs {dict(config)}); "
                "use another --out or delete that file",
                EXIT_INPUT,
            )
        done[int(rec["id"])] = rec
    return done
