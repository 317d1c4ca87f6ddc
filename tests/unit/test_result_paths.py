"""Every `evals/results/...` path that the README, docs/*.md, the verifiers' model cards, the evals indexes and
.env.example cite exists, so a figure quoted in prose leads to its result file: a glob must match a file, and
`{json,md}` names each file it stands for."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    REPO / "tools" / "models" / "verifier" / "MODEL_CARD.md",
    REPO / "tools" / "models" / "sentence_verifier" / "MODEL_CARD.md",
    REPO / "evals" / "README.md",
    REPO / "evals" / "studies" / "README.md",
    REPO / ".env.example",
]
CITED = re.compile(r"evals/results(?:/[\w.*{},/-]*)?")


def expand(path: str) -> list[str]:
    """`a.{json,md}` -> `a.json`, `a.md` (every brace group, left to right)."""
    group = re.search(r"\{([^{}]*)\}", path)
    if group is None:
        return [path]
    head, tail = path[: group.start()], path[group.end() :]
    return [name for part in group.group(1).split(",") for name in expand(head + part + tail)]


def cited(text: str) -> Iterator[str]:
    """The results paths a text cites, without the punctuation that ends its sentence."""
    for match in CITED.finditer(text):
        yield match.group(0).rstrip(".,")


def missing(text: str, root: Path = REPO) -> list[str]:
    """The cited paths (after brace expansion) that name no file or folder under ``root``."""
    return [
        name
        for path in cited(text)
        for name in expand(path)
        if not (any(root.glob(name)) if "*" in name else (root / name).exists())
    ]


def test_every_cited_result_exists():
    gone = {doc.relative_to(REPO).as_posix(): missing(doc.read_text(encoding="utf-8")) for doc in DOCS}
    assert {doc: paths for doc, paths in gone.items() if paths} == {}


def test_the_documents_cite_results():
    assert all(doc.is_file() for doc in DOCS)
    assert sum(len(list(cited(doc.read_text(encoding="utf-8")))) for doc in DOCS) > 30


def test_a_missing_or_stale_path_is_caught(tmp_path: Path):
    (tmp_path / "evals" / "results" / "archive").mkdir(parents=True)
    for name in ("verifier_dev.json", "bench_ask.md"):
        (tmp_path / "evals" / "results" / name).write_text("{}")
    text = (
        "Figures in `evals/results/verifier_dev.{json,md}`, `evals/results/bench_*.md` and `evals/results/archive/`; "
        "the old run is evals/results/dev_full_v5/scifact_dev_full.md."
    )
    assert missing(text, tmp_path) == ["evals/results/verifier_dev.md", "evals/results/dev_full_v5/scifact_dev_full.md"]
