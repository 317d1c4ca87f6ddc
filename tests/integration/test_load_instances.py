"""evals/bench/load_instances.py end to end on the scripted LLM server (tests/fake_llm.py) instead of the embedded
model: a throwaway PostgreSQL, one chat instance, then two, each on a copy of the built SciFact index, two SciFact
claims split between the instances; both phases answer every chat and the report says the generated contexts'
setting. Speed is the real run's business (its docstring's command), not this test's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.settings.app import Settings
from evals.bench import load_instances
from tests.e2e.conftest import SCRIPT
from tests.fake_llm import scripted_llm_server
from tests.integration.pg_server import find_bin


def test_two_instances_beside_one_on_a_scripted_llm_server(tmp_path: Path):
    if find_bin() is None:
        pytest.skip("no PostgreSQL server binaries (initdb, postgres) found: `make test` installs Debian's postgresql")
    if not (Settings().stores.index_dir / "manifest.json").exists():
        pytest.skip("no built SciFact index: `make setup` builds it")
    with scripted_llm_server(list(SCRIPT)) as llm:
        code = load_instances.main(["--chats", "2", "--timeout", "240", "--llm-url", llm.url, "--out", str(tmp_path)])
        assert code == 0
        assert llm.requests > 0  # the instances asked the one LLM server, not an embedded model of their own
    res = json.loads((tmp_path / "load_two_instances.json").read_text())
    for key, n in (("one_instance", 1), ("two_instances", 2)):
        s = res[key]["summary"]
        assert (s["chats"], s["errored"], s["unanswered"]) == (2, 0, 0), res[key]["chats"]
        assert s["seconds_to_judged_verdict"]["n"] == 2 and s["seconds_waiting_for_its_turn"]["n"] == 2
        assert [p["chats"] for p in res[key]["per_instance"]] == ([2] if n == 1 else [1, 1])
    assert res["settings"]["GENERATED_CONTEXT"] is load_instances.generated_context_default()
    report = (tmp_path / "load_two_instances.md").read_text()
    assert f"the product default: {res['settings']['GENERATED_CONTEXT']}" in report
    assert "| judged verdict, p95 s |" in report
