"""The index on a Chroma server (`chroma run` on loopback, started by the test) instead of embedded Chroma:
the same code path a team uses when it sets CHROMA_URL; that server killed in the middle of a check; and an index
built once (`claimtrace index --chroma-url`, INDEX_DIR) that chat instances use without building it again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent.llm.scripted import ScriptedChatModel
from agent.result import CheckResult
from agent.service import run_claim
from agent.settings.app import Settings
from agent.state import Deps
from tests.conftest import BEARS, CHOOSE_NOT, FIXTURES, STOP_SEARCHING, decompose_rule
from tests.ports import free_port
from tools.index.build import build_index
from tools.index.local import CorpusIndex
from tools.models.verifier import get_verifier


@contextmanager
def chroma_server(store: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`chroma run` on a free loopback port, serving `store`: its process and its URL."""
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    assert os.path.exists(exe), "the chromadb package ships the `chroma` command; reinstall with `make setup`"
    port = free_port()
    proc = subprocess.Popen(
        [exe, "run", "--path", str(store), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "chroma run did not start within 30 s"
            time.sleep(0.2)
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with chroma_server(tmp_path_factory.mktemp("chroma_server")) as (_, url):
        yield url


def test_index_and_search_on_a_chroma_server(chroma_url: str, tmp_path: Path):
    manifest = build_index(FIXTURES / "tiny_corpus.jsonl", tmp_path, chroma_url=chroma_url, progress=False)
    assert manifest["chroma_url"] == chroma_url and manifest["docs"] == 8
    assert not (tmp_path / "chroma").exists()  # nothing embedded on disk: the vectors live on the server

    index = CorpusIndex(tmp_path, chroma_url)
    vec = index.embed(["ALDH1 breast cancer prognosis"])[0]
    assert index.dense_sentences(vec, 3)[0].doc_id == "103"
    assert index.sentence_vectors(["103"])["103"].shape == (4, 384)

    again = build_index(FIXTURES / "tiny_corpus.jsonl", tmp_path, chroma_url=chroma_url, progress=False)
    assert again["reused"]


CLAIM = "The MMR vaccine causes autism."
QUESTION = "Is MMR vaccination associated with autism risk?"


def test_a_chroma_server_killed_mid_check_costs_the_dense_search_only(tmp_path: Path):
    """The server dies after the first search (the claim and its negation), before the search with the LLM's
    question: that search uses BM25 alone with one note, the evidence sentences are embedded here, and the check
    ends with its verdict and the LLM's answer."""
    with chroma_server(tmp_path / "store") as (proc, url):
        build_index(FIXTURES / "tiny_corpus.jsonl", tmp_path / "index", chroma_url=url, progress=False)
        settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
            stores={"data_dir": tmp_path}, llm={"provider": "scripted"}, retrieval={"llm_questions": True}
        )
        llm = ScriptedChatModel(
            rules=[
                decompose_rule([QUESTION], "The MMR vaccine does not cause autism."),
                BEARS, CHOOSE_NOT,
                {"when": "<evidence>", "reply": "Cohort studies found no association with autism [1]."},
                STOP_SEARCHING,
            ]
        )
        deps = Deps(settings=settings, llm=llm, index=CorpusIndex(tmp_path / "index", url), verifier=get_verifier())
        searches: list[dict[str, Any]] = []

        def kill_after_first_search(node: str, update: dict[str, Any]) -> None:
            if node == "retrieve":
                searches.append(update)
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(timeout=10)

        state = run_claim(CLAIM, deps, on_update=kill_after_first_search)
    result = CheckResult.from_state(state)
    assert len(searches) == 2  # the claim queries, then the question, with the server gone
    assert f"dense_sentence_search|{CLAIM}" in searches[0]["ranked_lists"]
    assert f"dense_sentence_search|{QUESTION}" not in searches[1]["ranked_lists"]
    assert f"bm25_search|{QUESTION}" in searches[1]["ranked_lists"]
    notes = [n for n in result.notes if "stopped answering" in n]
    assert notes == [
        f"the Chroma store ({url}) stopped answering (ConnectError: [Errno 111] Connection refused): "
        "this search used keywords (BM25) only"
    ]
    assert result.sources and result.verdict is not None and not result.verdict.provisional
    assert any(s.citations for s in result.sentences) and result.llm.calls >= 2  # the LLM's questions and answer


def test_claimtrace_index_builds_into_a_chroma_server_that_chat_instances_share(chroma_url: str, tmp_path: Path):
    """`claimtrace index --chroma-url` builds the dense index into the server and the rest into INDEX_DIR, once; a chat
    instance with its own DATA_DIR and that INDEX_DIR searches both and starts no build of its own."""
    from tests.integration.test_cli import run
    from ui.chat.dense_build import finish_in_background

    shared = tmp_path / "shared_index"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_", "CHROMA_", "CORPUS_"))}
    env.update({"DATA_DIR": str(tmp_path / "builder"), "INDEX_DIR": str(shared), "LLM_PROVIDER": "scripted"})
    proc = run(["index", "--chroma-url", chroma_url, "--corpus", str(FIXTURES / "tiny_corpus.jsonl")], env)
    assert proc.returncode == 0, proc.stderr
    assert f"8 abstracts, 29 sentences (0 malformed line(s) skipped) at {shared}" in proc.stdout
    assert {p.name for p in shared.iterdir()} >= {"manifest.json", "bm25", "corpus.jsonl"}
    assert not (shared / "chroma").exists() and not (tmp_path / "builder" / "index").exists()

    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path / "instance", "index_path": shared, "chroma_url": chroma_url}
    )
    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    assert index.dense_building() is None
    assert finish_in_background(Deps(settings, ScriptedChatModel(rules=[]), index, get_verifier())) is None
    assert index.dense_sentences(index.embed(["ALDH1 breast cancer prognosis"])[0], 3)[0].doc_id == "103"
    assert index.bm25("ALDH1 breast cancer", 1)[0].doc_id == "103"


def test_an_instance_whose_manifest_is_behind_a_whole_index_on_the_server_builds_nothing(
    chroma_url: str, tmp_path: Path
):
    """An instance's own keyword-first index folder says the dense build is under way, while the server holds the
    whole index (built by another): it searches by meaning at once and starts no build; with the server's index
    partial, it does build."""
    from ui.chat.dense_build import finish_in_background

    keyword_first = build_index(FIXTURES / "tiny_corpus.jsonl", tmp_path / "mine", chroma_url=chroma_url,
                                progress=False, dense=False)
    assert keyword_first["dense"] == {"done": 0, "of": 29}
    index = CorpusIndex(tmp_path / "mine", chroma_url)
    assert index.dense_building() == (0, 29)  # the server's collection is empty as yet

    build_index(FIXTURES / "tiny_corpus.jsonl", tmp_path / "whole", chroma_url=chroma_url, progress=False)
    index = CorpusIndex(tmp_path / "mine", chroma_url)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert index.dense_building() is None
    assert finish_in_background(Deps(settings, ScriptedChatModel(rules=[]), index, get_verifier())) is None
    assert index.dense_sentences(index.embed(["ALDH1 breast cancer prognosis"])[0], 3)[0].doc_id == "103"
