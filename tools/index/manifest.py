"""The index's manifest (``manifest.json`` in the index folder): the fingerprint of what was built, the build's figures
and how far the dense index is; read by the index, written by its build (tools.index.build), and what a quick look at
the folder finds missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.files import sqlite_problem

MANIFEST = "manifest.json"


def read_manifest(index_dir: Path) -> dict[str, Any] | None:
    path = index_dir / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "fingerprint" in data else None


def dense_left(manifest: dict[str, Any]) -> tuple[int, int] | None:
    """(sentences embedded, sentences in all) while the dense index is being built; None once it is whole (an index
    built before the build had two phases says nothing, and is whole)."""
    dense = manifest.get("dense")
    if not isinstance(dense, dict) or dense.get("done", 0) >= dense.get("of", 0):
        return None
    return int(dense["done"]), int(dense["of"])


def index_problem(index_dir: Path, chroma_url: str | None) -> str | None:
    """What is missing or unreadable in a built index, from a quick look at its files (no model, no search); None
    when nothing is."""
    for part in ("corpus.jsonl", "bm25/params.index.json", "bm25/doc_ids.json"):
        if not (index_dir / part).is_file():
            return f"{part} is missing"
    if chroma_url is None:
        problem = sqlite_problem(index_dir / "chroma" / "chroma.sqlite3", thorough=False)
        if problem:
            return f"chroma/chroma.sqlite3 is {problem}"
    return None


def write_manifest(index_dir: Path, manifest: dict[str, Any]) -> None:
    """The manifest, replaced in one step: a reader never sees half of it."""
    tmp = index_dir / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2))
    tmp.replace(index_dir / MANIFEST)
