"""Secrets never leak: with distinctive values for every key, the chat's password and auth secret and a database
password, the `claimtrace` commands a user runs (index, ask with a scripted LLM, ask against an LLM server that
echoes the key in its error, bad base URLs, a one-claim eval, a feedback export, a refused `ui` start) print none of
them, and no file they write holds one. The chat server's log and files: tests/e2e/test_login_security.py."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.integration.test_cli import CLAIM, SCRIPT, run

SECRETS = {
    "LLM_API_KEY": "sk-int-key-Hq3Zp8Vw1Ld6",
    "NCBI_API_KEY": "ncbi-int-key-Rt5Mb2Xc9",
    "S2_API_KEY": "s2-int-key-Fw7Kd4Ns0",
    "OPENALEX_API_KEY": "oa-int-key-Pj6Ye3Qg8",
    "CLAIMTRACE_UI_PASSWORD": "ui-int-pw-Lc2Wv9Tb4",
    "CHAINLIT_AUTH_SECRET": "auth-int-secret-Mz8Gh1Rk5Xs3Dn7",
}
DB_PASSWORD = "pg-int-pw-Yb6Jq2Cf9"
# claims about the tiny corpus in SciFact's format, for a one-claim eval
CLAIMS = [
    {"id": 1, "claim": CLAIM, "evidence": {"101": [{"sentences": [3], "label": "CONTRADICT"}]}, "cited_doc_ids": [101]}
]


class EchoingLLM(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server that refuses every request with an error quoting the key it was sent, as a
    careless or hostile server may."""

    seen: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        EchoingLLM.seen.append(key)
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"}})
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def echoing_llm() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EchoingLLM)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


@pytest.fixture
def secret_env(tmp_path: Path) -> dict[str, str]:
    data = tmp_path / "data"
    data.mkdir()
    (data / "script.json").write_text(json.dumps(SCRIPT))
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "claims_dev.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CLAIMS))
    env = dict(os.environ)  # holds no setting of the runner's (tests/conftest.py)
    env.update(SECRETS)
    env.update(
        {
            "DATA_DIR": str(data),
            "CORPUS_MIRROR": str(mirror),
            "LLM_PROVIDER": "scripted",
            "LLM_SCRIPT": str(data / "script.json"),
            "CHECKPOINT_URL": f"postgresql://claimtrace:{DB_PASSWORD}@127.0.0.1:9/threads",
        }
    )
    return env


def secret_values() -> list[str]:
    return [*SECRETS.values(), DB_PASSWORD]


def test_no_command_output_or_written_file_holds_a_secret(
    secret_env: dict[str, str], echoing_llm: str, tmp_path: Path
) -> None:
    outputs: list[str] = []

    def claimtrace(args: list[str], env: dict[str, str], code: int) -> subprocess.CompletedProcess[str]:
        proc = run(args, env)
        outputs.extend([proc.stdout, proc.stderr])
        assert proc.returncode == code, proc.stderr
        return proc

    claimtrace(["index", "--corpus", str(FIXTURES / "tiny_corpus.jsonl")], secret_env, 0)
    result = json.loads(claimtrace(["ask", CLAIM, "--json"], secret_env, 0).stdout)
    assert result["sentences"] and result["llm"]["calls"] >= 1
    claimtrace(["ask", CLAIM], secret_env, 0)

    refused = {**secret_env, "LLM_PROVIDER": "openai", "LLM_BASE_URL": echoing_llm, "LLM_MAX_RETRIES": "0"}
    answered = json.loads(claimtrace(["ask", CLAIM, "--json"], refused, 0).stdout)
    assert SECRETS["LLM_API_KEY"] in EchoingLLM.seen  # the key went out, and the error held it
    assert any("HTTP 401" in note for note in answered["notes"]), answered["notes"]

    key_in_url = f"https://user:{SECRETS['LLM_API_KEY']}@llm.example/v1"
    bad = claimtrace(["ask", CLAIM], {**secret_env, "LLM_BASE_URL": key_in_url}, 2)
    assert "LLM_BASE_URL: Value error, must not hold a user name or password" in bad.stderr
    ftp = f"ftp://{SECRETS['NCBI_API_KEY']}.example"
    assert (
        "must start with http:// or https://"
        in claimtrace(["ask", CLAIM], {**secret_env, "NCBI_BASE_URL": ftp}, 2).stderr
    )

    out = tmp_path / "eval"
    claimtrace(["eval", "scifact", "--split", "dev", "--limit", "1", "--out", str(out)], secret_env, 0)
    report = json.loads((out / "scifact_dev_full_limit1.json").read_text())
    assert report["run"]["settings"]["llm"]["api_key"] == "**********"
    assert DB_PASSWORD not in report["run"]["settings"]["stores"]["checkpoint_url"]

    from agent.result import CheckResult
    from agent.store.feedback import record_feedback

    record_feedback(Path(secret_env["DATA_DIR"]), "t1", CheckResult.model_validate(result), 1, "flag_wrong")
    export = tmp_path / "feedback.jsonl"
    claimtrace(["feedback", "export", "--out", str(export)], secret_env, 0)
    assert CLAIM in export.read_text()

    no_password = {k: v for k, v in secret_env.items() if k != "CLAIMTRACE_UI_PASSWORD"}
    assert "without a configured password" in claimtrace(["ui", "--host", "0.0.0.0"], no_password, 2).stderr

    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 10  # the index, the eval's outputs, the export, the feedback database
    for value in secret_values():
        assert not [o for o in outputs if value in o], value
        assert [str(p) for p in written if value.encode() in p.read_bytes()] == [], value
