"""The evaluation's files, inputs, names, command line and reports: resumable predictions files, claim loading,
output names and the canonical command, the commit id, one-line failures, and the rendered report."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from agent.errors import EXIT_INPUT, EXIT_UNAVAILABLE, CliError
from evals.experiments import git_commit
from evals.scifact.data import load_claims
from evals.scifact.metrics import full_metrics
from evals.scifact.records import code_fingerprint, open_records, read_records, resume_records, write_records
from evals.scifact.run import EvalOptions
from tests.unit.test_eval_metrics import CONFIG, GOLD_CLAIM, NEI_CLAIM, record_from_state, toy_state

# --- the predictions file ------------------------------------------------------------------------------------


def test_a_cut_last_line_is_dropped_and_the_file_repaired(tmp_path: Path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": 1, "config": CONFIG}) + "\n" + '{"id": 2, "conf')
    assert [r["id"] for r in read_records(path)] == [1]
    assert path.read_text().endswith("}\n")
    with path.open("a") as fh:  # the next record appended lands on a line of its own
        fh.write(json.dumps({"id": 3, "config": CONFIG}) + "\n")
    assert sorted(resume_records(path, CONFIG)) == [1, 3]


def test_a_gzip_stream_an_interrupted_run_left_is_read_up_to_its_last_record_and_repaired(tmp_path: Path):
    path = tmp_path / "p.jsonl.gz"
    with open_records(path, "a") as fh:
        for i in (1, 2):
            fh.write(json.dumps({"id": i, "config": CONFIG}) + "\n")
            fh.flush()  # as run_full does after each record
        cut = path.read_bytes()  # what a killed run leaves: no end-of-stream marker
    path.write_bytes(cut)
    with pytest.raises(EOFError):
        gzip.decompress(cut)
    assert [r["id"] for r in read_records(path)] == [1, 2]
    assert [json.loads(line)["id"] for line in gzip.decompress(path.read_bytes()).splitlines()] == [1, 2]
    with open_records(path, "a") as fh:  # a resumed run appends a gzip member of its own
        fh.write(json.dumps({"id": 3, "config": CONFIG}) + "\n")
    assert sorted(resume_records(path, CONFIG)) == [1, 2, 3]


def test_written_records_read_back_compressed_or_plain(tmp_path: Path):
    records = [{"id": 1, "config": CONFIG, "claim": "IL-6 \u2028 in mice"}, {"id": 2, "config": CONFIG}]
    for name in ("p.jsonl.gz", "p.jsonl"):
        write_records(tmp_path / name, records)
        assert read_records(tmp_path / name) == records
    assert (tmp_path / "p.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"  # the gzip magic number
    assert (tmp_path / "p.jsonl").read_text(encoding="utf-8").count("\n") == 2


def test_resume_refuses_records_of_another_configuration(tmp_path: Path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": 1, "config": {**CONFIG, "llm": "embedded:qwen"}}) + "\n")
    with pytest.raises(CliError, match="another configuration") as e:
        resume_records(path, CONFIG)
    assert e.value.code == EXIT_INPUT
    assert resume_records(tmp_path / "missing.jsonl", CONFIG) == {}


def test_code_fingerprint_changes_with_pipeline_source_only(tmp_path: Path):
    for top in ("agent", "tools", "prompts", "ui"):
        (tmp_path / top).mkdir()
    (tmp_path / "agent" / "graph.py").write_text("EDGES = []\n")
    (tmp_path / "prompts" / "answer.md").write_text("Answer from the evidence.\n")
    (tmp_path / "tools" / "models").mkdir()
    (tmp_path / "tools" / "models" / "MODEL_CARD.md").write_text("v5\n")
    first = code_fingerprint(tmp_path)
    assert code_fingerprint(tmp_path) == first
    (tmp_path / "ui" / "chat").mkdir()
    (tmp_path / "ui" / "chat" / "app.py").write_text("changed outside the pipeline\n")
    (tmp_path / "tools" / "models" / "MODEL_CARD.md").write_text("a model card is documentation\n")
    assert code_fingerprint(tmp_path) == first
    (tmp_path / "prompts" / "answer.md").write_text("Answer from the evidence, briefly.\n")
    assert code_fingerprint(tmp_path) != first


# --- inputs, names, run info -----------------------------------------------------------------------------------


def test_load_claims_errors_and_limit(tmp_path: Path):
    with pytest.raises(CliError) as e:
        load_claims(tmp_path, "dev")
    assert e.value.code == EXIT_UNAVAILABLE and "claims_dev.jsonl" in str(e.value)
    with pytest.raises(CliError) as e:
        load_claims(tmp_path, "test")
    assert e.value.code == EXIT_INPUT
    (tmp_path / "claims_train.jsonl").write_text("\n".join(json.dumps(c) for c in (GOLD_CLAIM, NEI_CLAIM)) + "\n")
    assert [c["id"] for c in load_claims(tmp_path, "train", limit=1)] == [7]


def test_names_and_the_canonical_command(tmp_path: Path):
    opts = EvalOptions(split="dev", retrieval_only=True)
    assert opts.name == "scifact_dev_retrieval"
    assert opts.command() == "claimtrace eval scifact --split dev --retrieval-only"
    assert opts.predictions_path.name == "scifact_dev_retrieval.predictions.jsonl.gz"
    full = EvalOptions(split="train", limit=2, out=tmp_path)
    assert full.name == "scifact_train_full_limit2"
    assert full.predictions_path == tmp_path / "scifact_train_full.predictions.jsonl.gz"  # shared across limits
    assert full.command() == f"claimtrace eval scifact --split train --limit 2 --out {tmp_path}"
    judged = EvalOptions(split="dev", judgement_only=True, out=tmp_path)
    assert judged.name == "scifact_dev_judgement"
    assert judged.predictions_path == tmp_path / "scifact_dev_judgement.predictions.jsonl.gz"  # apart from full runs'
    assert judged.command() == f"claimtrace eval scifact --split dev --out {tmp_path} --judgement-only"


def test_a_judgement_only_run_leaves_the_answers_metrics_empty():
    rec = json.loads(json.dumps(record_from_state(GOLD_CLAIM, toy_state(), 3.0, CONFIG)))
    m = full_metrics([rec], [GOLD_CLAIM], verifier_results=Path("/nonexistent.json"), answered=False)
    assert m["abstract"]["label_only"]["f1"] is not None  # the labels are measured
    assert m["verifier"]["flag_precision"] is None and set(m["faithfulness"].values()) == {None}


def test_retrieval_only_and_judgement_only_exclude_each_other(capsys):
    from ui.terminal.cli import main

    assert main(["eval", "scifact", "--retrieval-only", "--judgement-only"]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_git_commit_is_head_of_a_checkout_and_none_elsewhere(tmp_path: Path):
    import subprocess

    assert git_commit(tmp_path) is None
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    assert git_commit(tmp_path) == head and len(head) == 40


def test_eval_failures_reach_the_user_as_one_line(monkeypatch, capsys):
    import evals.scifact.run
    from ui.terminal.cli import main

    def fail(opts: Any) -> Any:
        raise CliError("no index here", 3)

    monkeypatch.setattr(evals.scifact.run, "evaluate", fail)
    assert main(["eval", "scifact", "--split", "dev", "--retrieval-only"]) == 3
    assert capsys.readouterr().err.strip().splitlines() == ["claimtrace: no index here"]


# --- reports -------------------------------------------------------------------------------------------------


def _result() -> dict[str, Any]:
    rec = json.loads(json.dumps(record_from_state(GOLD_CLAIM, toy_state(), 3.0, CONFIG)))
    m = full_metrics([rec], [GOLD_CLAIM], verifier_results=Path("/nonexistent.json"))
    run = {"split": "dev", "mode": "full", "claims": 1, "claims_evaluated": 1, "command": "claimtrace eval scifact"}
    run["evidence"] = "sentences of the top 3 abstracts; labelled abstracts: 1 (strongest first)"
    return {"run": run, **m}


def test_table_and_markdown_show_values_baselines_and_anchors():
    from evals.scifact import report

    result = _result()
    text = report.table(result)
    assert "Recall@3" in text and "VerT5erini 0.866" in text and ">= 0.92" in text
    md = report.markdown(result)
    assert "| Recall@5 | 1.000 | 1.000 | 1.000 | VerT5erini 0.894; BM25 0.847 | >= 0.95 |" in md
    assert "label only f1 | 0.800 | VerT5erini 0.651" in md
    assert "`claimtrace eval scifact`" in md
    assert "- evidence and labels: sentences of the top 3 abstracts; labelled abstracts: 1" in md
    # a retrieval-only result has no abstract section
    ro = {**result, "abstract": {"label_only": {"precision": None, "recall": None, "f1": None}}}
    assert "Abstract level" not in report.markdown(ro)


def test_plot_writes_a_png(tmp_path: Path):
    from evals.scifact import report

    path = tmp_path / "r.png"
    report.plot(_result(), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_replay_of_a_missing_or_empty_file_stops_with_one_line(tmp_path: Path) -> None:
    from evals.scifact.records import replay_records, write_records

    with pytest.raises(SystemExit, match="no such predictions file"):
        replay_records(tmp_path / "scifact_dev_full.predictions.jsonl")
    empty = tmp_path / "empty.predictions.jsonl.gz"
    write_records(empty, [])
    with pytest.raises(SystemExit, match="holds no complete record"):
        replay_records(empty)
    write_records(empty, [{"id": 1}])
    assert replay_records(empty) == [{"id": 1}]
