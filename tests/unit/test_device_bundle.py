"""What travels to a lent GPU machine (evals/training/device_bundle.py): a tiny base and tiny data files written
here in the real formats, packed in parts, rebuilt as the machine rebuilds them."""

from __future__ import annotations

import gzip
import json
import tarfile
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from evals.training import device_bundle as db


@pytest.fixture()
def base_and_data(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    base = tmp_path / "base"
    (base / "1_Pooling").mkdir(parents=True)
    for name in db.BASE_FILES:
        (base / name).write_text("{}")
    save_file({"embeddings.word_embeddings.weight": rng.normal(0, 0.05, (400, 300)).astype(np.float32),
               "encoder.layer.0.attention.attn.q.weight": rng.normal(0, 0.05, (300, 400)).astype(np.float32),
               "encoder.layer.0.attention.attn.q.bias": rng.normal(0, 0.05, (300,)).astype(np.float32),
               "pooler.dense.weight": np.zeros((30, 30), np.float32)}, str(base / "model.safetensors"))
    data = tmp_path / "data"
    for src in db.DATA:
        (data / src).parent.mkdir(parents=True, exist_ok=True)
        (data / src).write_text(json.dumps({"file": src}) + "\n")
    (data / "nli").mkdir()
    with gzip.open(data / db.NLI_MIX, "wt") as f:
        for source in ("vitaminc", "anli", "sick", "evidence_inference"):
            f.write(json.dumps({"source": source, "label": "entailment"}) + "\n")
    return base, data


@pytest.fixture()
def packed(base_and_data: tuple[Path, Path], tmp_path: Path) -> Path:
    """What travels, in parts of 100 kB."""
    out = tmp_path / "gpu"
    db.pack(*base_and_data, out, part_mb=0.1)
    return out


def test_the_base_and_data_come_back_from_parts_no_larger_than_asked(
    base_and_data: tuple[Path, Path], packed: Path, tmp_path: Path
) -> None:
    base, data = base_and_data
    out = packed
    parts = sorted(out.glob(f"{db.PART}*"))
    assert len(parts) >= 2 and all(p.stat().st_size <= 100_000 for p in parts)
    there = tmp_path / "there"
    db.unpack(out, out / "bundle.tar.xz", there)

    rebuilt, original = load_file(str(there / "base" / "model.safetensors")), load_file(str(base / "model.safetensors"))
    assert set(rebuilt) == set(original) - {"pooler.dense.weight"}
    for name, w in rebuilt.items():
        error = np.abs(w - original[name]).max(axis=-1)
        assert (error <= np.abs(original[name]).max(axis=-1) / 254 + 1e-7).all(), name  # half an int8 step a row
    assert np.array_equal(rebuilt["encoder.layer.0.attention.attn.q.bias"],
                          original["encoder.layer.0.attention.attn.q.bias"])  # vectors travel exactly
    for src in db.DATA:
        assert (there / "data" / src).read_text() == (data / src).read_text()


def test_the_nli_mix_travels_without_the_sources_kept_out_of_shipped_weights(packed: Path) -> None:
    with tarfile.open(packed / "bundle.tar.xz") as tar:
        member = tar.extractfile(f"data/{db.NLI_MIX}")
        assert member is not None
        with gzip.open(member, "rt") as mix:
            sources = [json.loads(line)["source"] for line in mix]
    assert sources == ["vitaminc", "evidence_inference"]


def test_a_trained_artifact_is_pointed_at_the_fp32_base(base_and_data: tuple[Path, Path], tmp_path: Path) -> None:
    base, _ = base_and_data
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / "verifier_config.json").write_text(json.dumps({"base_path": "/tmp/b/base",
                                                               "base_model_sha256": "0" * 64}))
    db.rebase(artifact, base)
    config = json.loads((artifact / "verifier_config.json").read_text())
    from tools.files import sha256_file

    assert config["base_path"] == str(base.resolve())
    assert config["base_model_sha256"] == sha256_file(base / "model.safetensors") != "0" * 64
