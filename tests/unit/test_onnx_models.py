"""The ONNX Runtime embedder and verifier against their PyTorch originals; the export cache; the embedding store;
the run-time path free of torch."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from evals.training.probes import BY_NAME
from tools.index.build import fingerprint
from tools.index.embed_cache import CachedEmbedder, EmbeddingCache
from tools.models.embedder import DIM, Embedder, get_embedder
from tools.models.minilm import base_model_path
from tools.models.onnx_models import verifier_model
from tools.models.onnx_runtime import load_tokenizer
from tools.models.verifier import ARTIFACT_DIR, CONFIG_FILE, DELTA_FILE, SENTENCE_ARTIFACT_DIR, Verifier
from tools.models.verifier_artifact import READER_ARTIFACT_DIR
from tools.text.premise import abstract_premise

LONG = " ".join(["Interleukin-6 signalling in the inflamed synovium of patients with rheumatoid arthritis"] * 20)
TEXTS = [
    "Aspirin reduces the risk of myocardial infarction.",
    "Vitamin D: Supplementation did not lower fracture rates in older adults.",
    "BRCA1 mutations increase breast cancer risk.",
    LONG,  # longer than 128 tokens: truncated the same way by both tokenizers
    "",
]
PAIRS = [
    BY_NAME["reduced fever"].pair(),
    BY_NAME["did not reduce fever"].pair(),
    BY_NAME["unrelated abstract"].pair(),
    ("Smoking increases lung cancer risk.", abstract_premise("Tobacco", (LONG, LONG), [1])),  # truncated pair
]


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return get_embedder("torch-fp32").encode(TEXTS)


@pytest.mark.torch
@pytest.mark.parametrize(("variant", "min_cos"), [("onnx-fp32", 0.999), ("onnx-int8", 0.97)])
def test_onnx_embeddings_match_torch(variant: str, min_cos: float, torch_vectors: np.ndarray) -> None:
    vecs = get_embedder(variant).encode(TEXTS)
    assert vecs.shape == (len(TEXTS), DIM) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    cos = (vecs * torch_vectors).sum(axis=1)
    assert cos.min() >= min_cos, cos


def test_onnx_vector_does_not_depend_on_its_neighbours() -> None:
    emb = get_embedder("onnx-int8")
    together = emb.encode(TEXTS)
    for i, text in enumerate(TEXTS):
        assert np.array_equal(emb.encode([text])[0], together[i])


@pytest.mark.torch
def test_fast_tokenizer_truncates_pairs_like_transformers() -> None:
    from transformers import AutoTokenizer

    max_len = json.loads((ARTIFACT_DIR / CONFIG_FILE).read_text())["max_len"]
    hf = AutoTokenizer.from_pretrained(str(base_model_path()), local_files_only=True)
    fast = load_tokenizer(base_model_path(), max_len)
    for hyp, prem in [*PAIRS, (LONG, "short premise")]:
        want = hf(hyp, prem, truncation="longest_first", max_length=max_len)
        got = fast.encode(hyp, prem)
        assert got.ids == want["input_ids"]
        assert got.type_ids == want["token_type_ids"]


@pytest.fixture(scope="module")
def torch_probs() -> np.ndarray:
    return np.asarray(Verifier(backend="torch").predict_proba(PAIRS))


@pytest.mark.torch
def test_onnx_fp32_verifier_matches_torch(torch_probs: np.ndarray) -> None:
    probs = np.asarray(Verifier(backend="onnx", precision="fp32").predict_proba(PAIRS))
    assert np.array_equal(probs.argmax(axis=1), torch_probs.argmax(axis=1))
    assert np.abs(probs - torch_probs).max() < 1e-3


@pytest.mark.torch
def test_onnx_int8_verifier_stays_close_to_torch() -> None:
    """The int8 recipe on the MiniLM sentence verifier. The mpnet claim verifier loses more in int8 (dev macro-F1
    0.632 -> 0.599, evals/results/verifier_mpnet_all_lora_e3/onnx_quality.md), so the run time reads both in fp32."""
    torch_probs = np.asarray(Verifier(SENTENCE_ARTIFACT_DIR, backend="torch").predict_proba(PAIRS))
    probs = np.asarray(Verifier(SENTENCE_ARTIFACT_DIR, backend="onnx", precision="int8").predict_proba(PAIRS))
    assert np.abs(probs - torch_probs).max() < 0.1
    clear = torch_probs.max(axis=1) > 0.6  # a confident torch label survives quantisation
    assert np.array_equal(probs.argmax(axis=1)[clear], torch_probs.argmax(axis=1)[clear])


def test_a_changed_verifier_exports_again(tmp_path: Path) -> None:
    art = tmp_path / "artifact"
    shutil.copytree(SENTENCE_ARTIFACT_DIR, art)  # the smaller network: each export is a MiniLM's, not an mpnet's
    first = verifier_model(art, "fp32", tmp_path / "cache")
    assert first.path.is_file() and first.path == verifier_model(art, "fp32", tmp_path / "cache").path
    from safetensors.numpy import load_file, save_file

    tensors = load_file(str(art / DELTA_FILE))
    tensors["full.head.bias"] = tensors["full.head.bias"] + np.float16(1.0)
    save_file(tensors, str(art / DELTA_FILE))
    second = verifier_model(art, "fp32", tmp_path / "cache")
    assert second.path != first.path and second.path.is_file()
    assert not list((tmp_path / "cache").glob(".*tmp*"))  # written atomically: no temporary file left


class CountingEmbedder(Embedder):
    variant = "counting"
    cache_key = "counting|v1"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
        self.seen += texts
        return np.asarray([[float(len(t))] + [0.0] * (DIM - 1) for t in texts], dtype=np.float32)


def test_embedding_store_embeds_each_text_once_per_variant(tmp_path: Path) -> None:
    store = EmbeddingCache(tmp_path / "emb.sqlite")
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, store)
    first = cached.encode(["a", "bb", "ccc"])
    again = CachedEmbedder(inner, EmbeddingCache(tmp_path / "emb.sqlite")).encode(["bb", "dddd", "a"])
    assert inner.seen == ["a", "bb", "ccc", "dddd"]
    assert again[:, 0].tolist() == [2.0, 4.0, 1.0] and first[:, 0].tolist() == [1.0, 2.0, 3.0]
    other = CountingEmbedder()
    other.cache_key = "counting|v2"
    CachedEmbedder(other, store).encode(["a"])
    assert other.seen == ["a"]  # another variant never reads these vectors


def test_index_fingerprint_and_queries_follow_the_embedder_variant(tiny_index: object) -> None:
    corpus = Path(__file__).parents[1] / "fixtures" / "tiny_corpus.jsonl"
    assert fingerprint(corpus, None, "onnx-int8") != fingerprint(corpus, None, "torch-fp32")
    manifest = tiny_index.manifest  # type: ignore[attr-defined]
    assert tiny_index._embedder.variant == manifest["embedder"]  # type: ignore[attr-defined]
    assert set(manifest["stage_seconds"]) >= {"corpus_load", "embedding", "chroma_add", "bm25"}


def test_export_and_run_time_import_neither_torch_nor_transformers(tmp_path: Path) -> None:
    """A fresh cache: the embedder, both verifiers and the abstract reader where it is installed are built from their
    weights (tools.models.onnx_bert), quantised and run, and neither torch nor transformers is ever imported."""
    code = (
        "import sys\n"
        "from tools.models.embedder import get_embedder\n"
        "from tools.models.onnx_models import export_all\n"
        "from tools.models.verifier import Verifier\n"
        "export_all()\n"
        "get_embedder('onnx-int8').encode(['a text'])\n"
        "Verifier(backend='onnx', precision='int8').predict([('a', 'b')])\n"
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))\n"
    )
    env = {**os.environ, "ONNX_CACHE_DIR": str(tmp_path / "onnx"), "EMBED_CACHE_PATH": str(tmp_path / "e.sqlite")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "[]"
    reader = (READER_ARTIFACT_DIR / CONFIG_FILE).is_file()
    assert len(list((tmp_path / "onnx").glob("*-fp32.onnx"))) == 3 + reader


def test_the_torch_backend_without_pytorch_is_one_clear_settings_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from pydantic import ValidationError

    from tools.models.onnx_models import ModelRuntimeSettings

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    monkeypatch.setenv("MODEL_BACKEND", "torch")
    with pytest.raises(ValidationError, match=r"torch needs PyTorch, which is not installed \(pip install -e"):
        ModelRuntimeSettings()
    monkeypatch.setenv("MODEL_BACKEND", "onnx")
    assert ModelRuntimeSettings().model_backend == "onnx"


def test_the_models_run_with_the_settings_the_application_passes(tmp_path, monkeypatch):
    from agent.service import use_settings
    from agent.settings.app import get_settings
    from tools.index.embed_cache import default_path
    from tools.models.onnx_models import use_runtime

    monkeypatch.setenv("EMBED_CACHE_PATH", str(tmp_path / "from-the-environment.sqlite"))
    settings = get_settings().with_values(models={"embed_cache_path": tmp_path / "from-the-settings.sqlite"})
    try:
        assert default_path() == tmp_path / "from-the-environment.sqlite"  # a tool used on its own
        use_settings(settings)
        assert default_path() == tmp_path / "from-the-settings.sqlite"
    finally:
        use_runtime(None)
