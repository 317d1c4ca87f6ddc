"""The labelling experiment's replay helpers: queries rebuilt as decompose makes them, the recorded queries of a
record, and the rule a run was made with, read from its records."""

from __future__ import annotations

from evals.studies.label_experiments import query_list, recorded_queries, recorded_rule


def test_replayed_queries_keep_decompose_kinds():
    qs = query_list("C", ["C", "Q1?", "Q2?", "not C"])
    kinds = [(q.text, q.kind) for q in qs]
    assert kinds == [("C", "claim"), ("Q1?", "question"), ("Q2?", "question"), ("not C", "opposite")]
    assert [(q.text, q.kind) for q in query_list("C", None)] == [("C", "claim")]


def test_recorded_queries_come_from_the_result():
    assert recorded_queries({"id": 1, "result": {"queries": ["C", "not C"]}}) == ["C", "not C"]
    assert recorded_queries(None) is None


def test_recorded_rule_reads_the_config():
    new = {7: {"config": {"rerank": [0, 3, 0.6], "top_docs": 3, "labels": [0.6, 0, 0.7]}}}
    assert recorded_rule(new) == (False, 3, 0.6, 0, 0.7)
    # runs made before verdicts could abstain recorded two values and always decided
    old = {7: {"config": {"rerank": [0, 3, 0.6], "top_docs": 3, "labels": [0.6, 1]}}}
    assert recorded_rule(old) == (False, 3, 0.6, 1, 0.0)


def test_write_experiment_writes_json_and_markdown(tmp_path, capsys):
    import json

    from evals.experiments import write_experiment

    write_experiment(tmp_path / "out", "x", {"claims": 3}, lambda r: f"# {r['claims']} claims\n")
    assert json.loads((tmp_path / "out" / "x.json").read_text()) == {"claims": 3}
    assert (tmp_path / "out" / "x.md").read_text() == "# 3 claims\n"
    assert capsys.readouterr().out == "# 3 claims\n\n"
