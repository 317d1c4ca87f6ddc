"""`eval scifact` on real SciFact dev claims against an index of a small corpus slice built here: retrieval-only on
20 claims, and a 2-claim full run with the scripted model (keys of the JSON, outputs, resume).

Skips with a reason when ../shared/data/scifact is absent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.settings.app import get_settings
from evals.scifact.cli import main
from evals.scifact.metrics import FAITHFULNESS_KEYS
from evals.scifact.records import read_records
from tests.conftest import BEARS, CHOOSE_NOT, STOP_SEARCHING, RuleVerifier, scifact_or_skip, write_scifact_slice
from tests.unit.test_eval_metrics import METRIC_KEYS

SLICE = 150
N_RETRIEVAL = 20
N_FULL = 2
KEYS = {"run", *METRIC_KEYS}
RETRIEVAL_KEYS = {"recall@3", "recall@5", "map@5", "ndcg@10"}


@pytest.fixture(scope="module")
def slice_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The first SLICE abstracts plus every evidence and cited abstract of the first N_RETRIEVAL dev claims."""
    from tools.index.build import build_index

    root = scifact_or_skip()
    claims = [json.loads(line) for line in (root / "claims_dev.jsonl").open()][:N_RETRIEVAL]
    gold = {str(d) for c in claims for d in [*c["evidence"], *c["cited_doc_ids"]]}
    data = tmp_path_factory.mktemp("eval_scifact")
    corpus = write_scifact_slice(root, data, gold, first=SLICE)
    build_index(corpus, data / "index", progress=False)
    script = data / "script.json"
    script.write_text(
        json.dumps(
            [
                {"when": "search questions", "reply": json.dumps({"questions": [], "opposite_claim": ""})},
                STOP_SEARCHING,
                BEARS, CHOOSE_NOT, {
                    "when": "<evidence>",
                    "reply": "The first source addresses the claim [1]. Another adds [2]. See [77].",
                },
            ]
        )
    )
    return {"data": data, "script": script, "claims": claims, "root": root}


@pytest.fixture(autouse=True)
def _fresh_settings() -> Any:
    yield
    get_settings.cache_clear()  # no other test may see this module's DATA_DIR / LLM settings


def _use(monkeypatch: pytest.MonkeyPatch, env: dict[str, Any]) -> None:
    for key in ("LLM_BASE_URL", "LLM_API_KEY", "OPENAI_API_KEY", "CHROMA_URL", "CORPUS_PATH"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("DATA_DIR", str(env["data"]))
    monkeypatch.setenv("CORPUS_MIRROR", str(env["root"]))
    monkeypatch.setenv("LLM_PROVIDER", "scripted")
    monkeypatch.setenv("LLM_SCRIPT", str(env["script"]))
    get_settings.cache_clear()


def _check_outputs(out: Path, name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((out / f"{name}.json").read_text())
    assert set(result) == KEYS
    assert set(result["retrieval"]) == RETRIEVAL_KEYS and set(result["retrieval_cited"]) == RETRIEVAL_KEYS
    assert set(result["baselines"]) == {"bm25", "dense"}
    for base in result["baselines"].values():
        assert set(base) == {"retrieval", "retrieval_cited"} and set(base["retrieval"]) == RETRIEVAL_KEYS
    assert set(result["abstract"]) == {"label_only", "label_rationale"}
    assert set(result["sentence"]) == {"selection", "selection_label"}
    for block in (*result["abstract"].values(), *result["sentence"].values()):
        assert set(block) == {"precision", "recall", "f1"}
    assert set(result["verifier"]) == {"macro_f1", "accuracy", "flag_precision", "flag_recall"}
    assert set(result["faithfulness"]) == set(FAITHFULNESS_KEYS)
    corrections = result["faithfulness"]["corrections"]
    assert corrections is None or set(corrections) == {"recited", "hedged", "rewritten", "replaced", "dropped"}
    assert set(result["cost"]) == {
        "seconds_per_claim",
        "llm_calls_per_claim",
        "prompt_tokens_per_claim",
        "completion_tokens_per_claim",
    }
    rates = {k: v for k, v in result["faithfulness"].items() if k != "corrections"}
    for values in (result["retrieval"].values(), result["retrieval_cited"].values(), rates.values()):
        assert all(v is None or 0.0 <= v <= 1.0 for v in values)
    assert (out / f"{name}.md").read_text().startswith("# SciFact dev")
    if (out / f"{name}.png").exists():
        assert (out / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    return result


def test_retrieval_only_on_20_dev_claims(slice_env, monkeypatch, tmp_path, capsys):
    _use(monkeypatch, slice_env)
    assert (
        main(["scifact", "--split", "dev", "--limit", str(N_RETRIEVAL), "--retrieval-only", "--out", str(tmp_path)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "Recall@3" in printed and "BM25" in printed
    result = _check_outputs(tmp_path, f"scifact_dev_retrieval_limit{N_RETRIEVAL}")
    run = result["run"]
    assert run["claims"] == N_RETRIEVAL and run["limit"] == N_RETRIEVAL and run["mode"] == "retrieval-only"
    assert run["command"].endswith("--retrieval-only") and run["date"]
    # every gold abstract is in this small index, so retrieval must find most of them
    assert result["retrieval"]["recall@5"] >= 0.7
    assert result["baselines"]["bm25"]["retrieval"]["recall@5"] >= 0.5
    assert result["cost"]["llm_calls_per_claim"] == 0.0
    assert result["abstract"]["label_only"]["f1"] is None
    records = read_records(tmp_path / f"scifact_dev_retrieval_limit{N_RETRIEVAL}.predictions.jsonl.gz")
    assert len(records) == N_RETRIEVAL
    assert set(records[0]["rankings"]) == {"fused", "bm25", "dense"}


def test_full_run_of_2_claims_with_the_scripted_model_resumes(slice_env, monkeypatch, tmp_path, capsys):
    _use(monkeypatch, slice_env)
    # the cost below counts the sources' direction and the answer; the LLM's reading of answer sentences
    # (agent.answer.sentence_direction) has its own tests, and its cost is measured in
    # evals/results/sentence_direction_answers.md
    monkeypatch.setenv("SENTENCE_DIRECTION_BELOW", "0")
    # the strategy whose model chooses its citations, so that citation validity is measured on a wrong one ([77])
    monkeypatch.setenv("ANSWER_STRATEGY", "abstractive")
    verifier = RuleVerifier({"": "supports"})  # every sentence supports: deterministic, no trained artifact needed
    monkeypatch.setattr("tools.models.verifier.get_verifier", lambda: verifier)
    monkeypatch.setattr("tools.models.verifier.get_sentence_verifier", lambda: verifier)  # answer sentences too
    args = ["scifact", "--split", "dev", "--limit", str(N_FULL), "--out", str(tmp_path)]
    assert main(args) == 0
    result = _check_outputs(tmp_path, f"scifact_dev_full_limit{N_FULL}")
    assert result["run"]["mode"] == "full" and result["run"]["claims_evaluated"] == N_FULL
    rule = "labelled abstracts: all (strongest first); no label below verdict confidence 0.5"
    assert rule in result["run"]["evidence"]  # the default rule is on record
    assert result["run"]["retrieval"]["queries"] == "claim + opposite claim"  # LLM_QUESTIONS is off by default
    # per claim, for each source the LLM reads, two calls for whether it bears (on the claim, on its opposite) and,
    # when it does, two for its direction; then the answer (the default asks the LLM for no search questions)
    records = read_records(tmp_path / "scifact_dev_full.predictions.jsonl.gz")
    directed = [sum(a["judged_by"] == "verifier+llm" for a in r["result"]["assessments"]) for r in records]
    aside = [sum(s["reason"].startswith("Not counted") for s in r["result"]["silent"]) for r in records]
    assert all(directed)  # every sentence supports: the gate passes sources, and the LLM reads each
    calls = sum(4 * n + 2 * a + 1 for n, a in zip(directed, aside, strict=True)) / len(records)
    assert result["cost"]["llm_calls_per_claim"] == calls and result["cost"]["seconds_per_claim"] > 0
    # the script cites [1], [2] and the non-existent [77]: 2 valid of 3 written per answer
    assert result["faithfulness"]["citation_validity"] == pytest.approx(2 / 3)
    # self-correction drops the sentence whose only citation does not exist; what is shown is then all supported
    assert result["faithfulness"]["draft_attributable_rate"] < result["faithfulness"]["attributable_rate"] == 1.0
    assert result["faithfulness"]["answers_corrected"] == 1.0 and result["faithfulness"]["corrections"]["dropped"] > 0
    assert result["abstract"]["label_only"]["precision"] is not None
    # the verdict confidence: its reliability and the risk-coverage rows, the run's own threshold among them
    calibration = result["calibration"]
    assert calibration["min_confidence"] == 0.5 and calibration["verdict_reliability"]["n"] >= 1
    assert 0.5 in [row["threshold"] for row in calibration["risk_coverage"]]
    name = f"scifact_dev_full_limit{N_FULL}"
    assert "## Verdict confidence: calibration and risk–coverage" in (tmp_path / f"{name}.md").read_text()
    assert (tmp_path / f"{name}_reliability.png").read_bytes()[:4] == b"\x89PNG"
    preds = tmp_path / "scifact_dev_full.predictions.jsonl.gz"
    assert len(read_records(preds)) == N_FULL
    written = preds.read_bytes()
    seen = len(verifier.seen)
    capsys.readouterr()

    # a second run finds both claims done: nothing is rerun, the metrics are recomputed from the file
    assert main(args) == 0
    assert len(verifier.seen) == seen
    assert preds.read_bytes() == written  # nothing appended, not even an empty gzip member
    again = _check_outputs(tmp_path, f"scifact_dev_full_limit{N_FULL}")
    assert {k: again[k] for k in KEYS - {"run", "cost"}} == {k: result[k] for k in KEYS - {"run", "cost"}}


def test_missing_index_is_one_clear_error(slice_env, monkeypatch, tmp_path, capsys):
    _use(monkeypatch, slice_env)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "empty"))
    get_settings.cache_clear()
    assert main(["scifact", "--limit", "2", "--retrieval-only", "--out", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("claimtrace: no index at") and "claimtrace index" in err
