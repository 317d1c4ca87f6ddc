"""The index on a Chroma server (`chroma run` on loopback, started by the test) instead of embedded Chroma:
the same code path a team uses when it sets CHROMA_URL."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import FIXTURES
from tests.ports import free_port
from tools.index import CorpusIndex
from tools.index_build import build_index


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    assert os.path.exists(exe), "the chromadb package ships the `chroma` command; reinstall with `make setup`"
    port = free_port()
    store = tmp_path_factory.mktemp("chroma_server")
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
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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
