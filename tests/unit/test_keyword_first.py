"""The keyword index first, the dense index behind it (tools/index/build.py): a check made while the dense index is
built searches by keyword and says how far the build is; an interrupted build resumes; the process that serves the
checks finishes the build and searches by meaning from then on, without a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import stages
from agent.state import Deps
from tests.conftest import FIXTURES
from tools.corpus import Abstract
from tools.index.build import build_index, embed_sentences, finish_dense
from tools.index.dense_store import sentence_text
from tools.index.embed_cache import CachedEmbedder, EmbeddingCache
from tools.index.errors import DenseIndexBuilding
from tools.index.local import CorpusIndex
from tools.index.manifest import read_manifest

CLAIM = "The MMR vaccine causes autism."


class Stop(Exception):
    pass


@pytest.fixture
def keyword_first(tmp_path: Path) -> tuple[Path, EmbeddingCache]:
    cache = EmbeddingCache(tmp_path / "emb.sqlite")
    manifest = build_index(FIXTURES / "tiny_corpus.jsonl", tmp_path / "index", progress=False, cache=cache,
                           dense=False)
    assert manifest["dense"] == {"done": 0, "of": manifest["sentences"]} and manifest["sentences"] > 4
    return tmp_path / "index", cache


def test_a_check_searches_by_keyword_while_the_dense_index_is_built(keyword_first, make_deps):
    index_dir, _ = keyword_first
    index = CorpusIndex(index_dir)
    with pytest.raises(DenseIndexBuilding, match=r"still being built \(0 of \d+ sentences, 0 %\)"):
        index.dense_sentences(index.embed([CLAIM])[0], 3)
    deps: Deps = make_deps([])
    deps.index = index
    state = stages.retrieval(CLAIM, deps)
    assert state["ranked_lists"] and all(key.startswith("bm25_search|") for key in state["ranked_lists"])
    assert any("still being built" in n and "keywords (BM25) only" in n for n in state["notes"])


def test_an_interrupted_build_resumes_and_the_open_index_searches_by_meaning_once_whole(keyword_first):
    index_dir, cache = keyword_first
    index = CorpusIndex(index_dir)

    def stop_after_first_batch(done: int, of: int) -> None:
        raise Stop

    cached = CachedEmbedder(index.embedder, cache)
    with pytest.raises(Stop):
        embed_sentences(index_dir, read_manifest(index_dir) or {}, index.collection, cached, False,
                        stop_after_first_batch, batch=2)
    assert read_manifest(index_dir)["dense"]["done"] == 2 and index.collection.count() == 2
    assert index.dense_building() == (2, index.manifest["sentences"])

    seen: list[int] = []
    finish_dense(index, lambda done, of: seen.append(done), cache)
    assert seen and seen[-1] == index.manifest["sentences"] and index.dense_building() is None
    assert index.collection.count() == index.manifest["sentences"]  # nothing embedded twice, nothing missing
    assert index.dense_sentences(index.embed([CLAIM])[0], 3)  # the same open index, without a restart
    again = build_index(FIXTURES / "tiny_corpus.jsonl", index_dir, progress=False, cache=cache)
    assert again["reused"]


def test_the_chat_server_finishes_the_dense_index_in_the_background(keyword_first, make_deps, tmp_path, capsys):
    from tools.models.onnx_models import ModelRuntimeSettings, use_runtime
    from ui.chat.dense_build import finish_in_background

    index_dir, _ = keyword_first
    deps: Deps = make_deps([])
    deps.index = CorpusIndex(index_dir)
    use_runtime(ModelRuntimeSettings(embed_cache_path=tmp_path / "server.sqlite"))  # type: ignore[call-arg]
    try:
        thread = finish_in_background(deps)
        assert thread is not None
        thread.join(timeout=60)
    finally:
        use_runtime(None)
    assert deps.index.dense_building() is None and deps.index.dense_sentences(deps.index.embed([CLAIM])[0], 3)
    err = capsys.readouterr().err
    assert "sentences (100 %)" in err and "checks now search by meaning too" in err
    assert finish_in_background(deps) is None  # a whole index starts nothing


class Recording:
    """The Chroma collection, recording every id added to it."""

    def __init__(self, collection: object) -> None:
        self.collection, self.added = collection, []  # type: ignore[var-annotated]

    def get(self, **kw):  # type: ignore[no-untyped-def]
        return self.collection.get(**kw)  # type: ignore[attr-defined]

    def add(self, ids, **kw):  # type: ignore[no-untyped-def]
        self.added += ids
        return self.collection.add(ids=ids, **kw)  # type: ignore[attr-defined]


def test_a_batch_added_before_its_manifest_was_written_is_not_added_again(keyword_first):
    index_dir, cache = keyword_first
    index = CorpusIndex(index_dir)
    cached = CachedEmbedder(index.embedder, cache)
    with pytest.raises(Stop):
        embed_sentences(index_dir, read_manifest(index_dir) or {}, index.collection, cached, False,
                        lambda done, of: (_ for _ in ()).throw(Stop), batch=2)
    # three more sentences reached Chroma, then the build died before the manifest said so
    docs = [Abstract.model_validate_json(line) for line in (index_dir / "corpus.jsonl").read_text().splitlines()]
    pairs = [(f"{d.doc_id}:{i}", sentence_text(d, i)) for d in docs for i in range(len(d.sentences))][2:5]
    index.collection.add(ids=[k for k, _ in pairs], embeddings=cached.encode([t for _, t in pairs]),
                         metadatas=[{"doc_id": k.split(":")[0], "idx": int(k.split(":")[1])} for k, _ in pairs])
    recording = Recording(index.collection)
    embed_sentences(index_dir, read_manifest(index_dir) or {}, recording, cached, False, batch=2)
    assert not set(recording.added) & {k for k, _ in pairs}  # what Chroma held was looked up, not added again
    assert len(recording.added) == len(set(recording.added)) == index.manifest["sentences"] - 5
    assert index.collection.count() == index.manifest["sentences"]


def test_the_chat_holds_the_build_while_a_check_runs_and_says_how_far_it_is(keyword_first, make_deps, tmp_path):
    import threading
    import time

    from tools.models.onnx_models import ModelRuntimeSettings, use_runtime
    from ui.chat.dense_build import building_line, finish_in_background

    index_dir, _ = keyword_first
    deps: Deps = make_deps([])
    deps.index = CorpusIndex(index_dir)
    sentences = deps.index.manifest["sentences"]
    assert f"0 of {sentences} sentences, 0 %" in building_line(deps) and "keywords only" in building_line(deps)
    checking = threading.Event()
    checking.set()
    use_runtime(ModelRuntimeSettings(embed_cache_path=tmp_path / "server.sqlite"))  # type: ignore[call-arg]
    try:
        thread = finish_in_background(deps, busy=checking.is_set)
        assert thread is not None
        time.sleep(1.0)
        assert deps.index.dense_building() == (0, sentences)  # held while the check runs
        checking.clear()
        thread.join(timeout=60)
    finally:
        use_runtime(None)
    assert deps.index.dense_building() is None and building_line(deps) == ""
