"""What every job of evals/ shares (the harness, training, bench and the studies), so it sits at the top of evals/:
the repository root, the header of a result (command, date, commit, claims) and writing a result as JSON and
Markdown."""

from __future__ import annotations

import json
import platform
import shlex
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]


def git_commit(repo: Path = REPO_ROOT) -> str | None:
    """HEAD's commit by `git rev-parse`; None outside a checkout or without git."""
    try:
        run = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if run.returncode != 0:
        return None
    return run.stdout.strip() or None


def cpu_kind() -> dict[str, Any]:
    """The CPU's model name and the vector instruction sets that change ONNX Runtime's and llama.cpp's kernels
    (AVX2 only, AVX-512, VNNI, AMX): results measured on one kind are compared with another's only knowingly."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {"model": "unknown", "flags": []}
    lines = info.splitlines()
    model = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "unknown")
    flags = next((ln.split(":", 1)[1].split() for ln in lines if ln.startswith("flags")), [])
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
    return {"model": model, "flags": [f for f in wanted if f in flags]}


def experiment_header(
    module: str, argv: list[str] | None, split: str, claims: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """What every experiment result starts with: the command that made it, when, at which commit, on which claims."""
    return {
        "command": f"python -m {module} " + shlex.join(sys.argv[1:] if argv is None else argv),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "split": split,
        "claims": len(claims),
        "claims_with_evidence": sum(bool(c["evidence"]) for c in claims),
    }


def write_experiment(
    out: Path, name: str, res: Mapping[str, Any], markdown: Callable[[Mapping[str, Any]], str]
) -> None:
    """``out/<name>.json`` and ``.md``; the Markdown is printed too."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(res, indent=2) + "\n")
    (out / f"{name}.md").write_text(markdown(res))
    print(markdown(res))


def report_heading(res: Mapping[str, Any], what: str, note: str) -> list[str]:
    """The first lines of an experiment's Markdown: what was measured on which claims, the command, and a note."""
    return [
        f"# {what} on SciFact {res['split']} ({res['claims']} claims, {res['claims_with_evidence']} with evidence)",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. {note}".rstrip(),
    ]


RETRIEVAL_COLUMNS = ("R@3", "R@5", "MAP@5", "nDCG@10", "cited R@5", "cited nDCG@10")


def retrieval_cells(m: Mapping[str, Any]) -> str:
    """A variant's retrieval figures as Markdown table cells, in RETRIEVAL_COLUMNS order."""
    r, c = m["retrieval"], m["retrieval_cited"]
    values = (r["recall@3"], r["recall@5"], r["map@5"], r["ndcg@10"], c["recall@5"], c["ndcg@10"])
    return " | ".join(f"{v:.3f}" for v in values)


def cpu_name() -> str:
    """The CPU's model name and whether it has AMX or AVX-512 (the kinds of machine figures differ by)."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.machine()
    name = next((ln.split(":", 1)[1].strip() for ln in info.splitlines() if ln.startswith("model name")), "")
    flags = next((ln for ln in info.splitlines() if ln.startswith("flags")), "")
    kind = "AMX" if "amx_tile" in flags else "AVX-512" if "avx512f" in flags else "AVX2"
    return f"{name} ({kind}, {platform.machine()})"
