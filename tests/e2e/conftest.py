"""Browser and socket tests of the chat: a real `claimtrace ui` server (scripted LLM, real index of the tiny corpus,
real verifier) and Debian's Chromium driven by Playwright (never a browser download of Playwright's own).
Skipped with a reason when a piece is missing."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CHOOSE_NOT, CONTEXT_RULE, FIXTURES, SURE_BEARS
from tests.e2e.server import ChatServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
USER, PASSWORD = "tester", "e2e-pw-Kq7vXw2Lr9"
# distinctive secret values the server holds; tests/e2e/test_login_security.py greps its log and files for each
SECRETS = {
    "CLAIMTRACE_UI_PASSWORD": PASSWORD,
    "CHAINLIT_AUTH_SECRET": "e2e-auth-secret-Zt4mNc8Hp1Qa6Yd3Wb5Rf0Ks",
    "LLM_API_KEY": "sk-e2e-key-Jd8Fh2Lm5Pq9",
    "NCBI_API_KEY": "ncbi-e2e-key-Vb3Nx7Tc1",
    "S2_API_KEY": "s2-e2e-key-Gy6Rw4Ue8",
}
CLAIM = "The MMR vaccine causes autism."
# a follow-up question the scripted router turns into a claim of its own (tests/e2e/test_followup_browser.py)
TWINS, REWRITTEN = "what about twins?", "MMR vaccination and autism in twins"
SCRIPT = [
    {
        "when": "search questions",
        "reply": json.dumps(
            {
                "questions": ["Is MMR vaccination associated with autism risk?"],
                "opposite_claim": "The MMR vaccine does not cause autism.",
            }
        ),
    },
    # a claim in German checked as the English CLAIM (tests/e2e/test_language_browser.py)
    {"when": "Translate the claim into English", "reply": json.dumps({"english": CLAIM})},
    {"when": f'Follow-up from the user: "{TWINS}"', "reply": json.dumps({"action": "search", "claim": REWRITTEN})},
    {
        "when": "Follow-up from the user",
        "reply": json.dumps({"action": "answer", "answer": "The cohort study found no association with autism [1]."}),
    },
    {  # a thin first search is searched again (agent/nodes/reformulate.py)
        "when": "found too little",
        "reply": json.dumps({"action": "search", "queries": ["measles mumps rubella vaccination autism cohort"]}),
    },
    SURE_BEARS, CHOOSE_NOT, CONTEXT_RULE,
    # one sentence per paper: paper 2's rules on the verdict instead of reporting a finding, and so does its rewrite
    {"when": "<draft>", "reply": "The verdict is that vaccines are dangerous for children."},
    {
        "when": "<evidence>",
        "reply": "1: Large cohort studies found no association between MMR vaccination and autism.\n"
        "2: The verdict is that vaccines are dangerous for children.",
    },
]


@pytest.fixture(scope="session")
def chat_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return chat_environment(tmp_path_factory.mktemp("chat_data"), SCRIPT)


def chat_environment(data: Path, script_rules: list[Any]) -> dict[str, str]:
    """The environment of a chat server on its own data folder ``data``: the tiny corpus indexed there, the scripted
    LLM answering by ``script_rules``, the test user and the secrets."""
    # make test installs Debian's chromium and the dev extra brings playwright: their absence is a setup fault
    assert shutil.which(CHROMIUM) or Path(CHROMIUM).is_file(), f"{CHROMIUM} missing: run `make test` (installs it)"
    from tools.models.verifier import get_verifier

    get_verifier()  # the committed artifact must load; its error says what is missing
    from tools.index.build import build_index

    build_index(FIXTURES / "tiny_corpus.jsonl", data / "index", progress=False)
    script = data / "script.json"
    script.write_text(json.dumps(script_rules))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "OPENAI_", "CHROMA_", "CORPUS_", "CHECKPOINT_", "CHAINLIT_", "CLAIMTRACE_UI"))
    }
    env.update(
        {
            "DATA_DIR": str(data),
            "LLM_PROVIDER": "scripted",
            "LLM_SCRIPT": str(script),
            "CLAIMTRACE_UI_USER": USER,
            **SECRETS,
            "OMP_WAIT_POLICY": "PASSIVE",
        }
    )
    return env


@pytest.fixture(scope="session")
def server(chat_env: dict[str, str]) -> Iterator[ChatServer]:
    srv = ChatServer(chat_env, Path(chat_env["DATA_DIR"]) / "server.log").start()
    yield srv
    srv.stop()


@pytest.fixture
def browser(chat_env: dict[str, str]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()
