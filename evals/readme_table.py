"""The README's "How good it is" table, written from the result files of the shipped runs.

    python -m evals.readme_table           # rewrite the table in README.md
    python -m evals.readme_table --check   # exit 1 when README.md holds another table than the files give

Each row is one entry of ``ROWS``: the words that say what the figure means, the result file it is read from, how it
is read (a template whose fields are dotted key paths into the file's JSON, or a function of the JSON), and the kind
of machine the run was made on (the files do not all record it). The commit is the one the file records. A row is
added by adding an entry; a figure is changed only by a new result file. The table sits in README.md between the
marker comments ``START`` and ``END``.
"""

from __future__ import annotations

import argparse
import json
import string
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
README = "README.md"
START = "<!-- readme_table:start -->"
END = "<!-- readme_table:end -->"
HEADER = ["what it measures", "figure", "file", "commit", "machine"]
XEON_AMX = "2-core Intel Xeon with AMX"


def key_path(data: Any, path: str) -> Any:
    """``data["a"]["b"]`` for ``"a.b"`` (a list is indexed by a number); KeyError names the whole path."""
    value = data
    for part in path.split("."):
        try:
            value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError) as e:
            raise KeyError(f"no {path!r} in the file") from e
    return value


class _KeyPaths(string.Formatter):
    """A format template whose fields are dotted key paths into one JSON object: ``{claims.wrong_side}``."""

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[Any, str]:
        return key_path(kwargs["data"], field_name), field_name


def newcomer_minutes(data: dict[str, Any]) -> str:
    """The clone at HEAD of the newcomer bench: minutes to the open chat / to a first judged answer."""
    run = next(r for r in data["runs"] if r["rev"] == "HEAD")
    return f"{run['chat_open_minutes']:.2f} / {run['first_answer_minutes']:.2f}"


@dataclass(frozen=True)
class Row:
    words: str  # what the figure means, in plain words
    file: str  # the result JSON, from the repository root
    figure: str | Callable[[dict[str, Any]], str]  # a template of dotted key paths, or a function of the JSON
    machine: str  # the kind of machine the run was made on
    commit: str = "git_commit"  # the dotted key path of the commit the file records

    def read(self, root: Path) -> list[str]:
        """The row's cells, read from its file under ``root``."""
        data = json.loads((root / self.file).read_text(encoding="utf-8"))
        figure = self.figure(data) if callable(self.figure) else _KeyPaths().format(self.figure, data=data)
        name = self.file.removeprefix("evals/results/")
        link = f"[{name}]({self.file})"
        return [self.words, figure, link, str(key_path(data, self.commit))[:7], self.machine]


JUDGEMENT = "evals/results/mpnet_verifier/scifact_dev_judgement.json"
BENCH = "evals/results/mpnet_verifier/bench_ask.json"

ROWS: list[Row] = [
    Row(
        "SciFact dev claims whose verdict takes SciFact's side, of the 188 the corpus settles (in brackets: refuted "
        "claims refuted, of 64; claims given the wrong side)",
        JUDGEMENT,
        "{claims.right_of_settled:.3f} ({claims.CONTRADICT.right} of {claims.CONTRADICT.claims}; {claims.wrong_side})",
        XEON_AMX,
        commit="run.git_commit",
    ),
    Row(
        "papers the verdict counts that SciFact's annotators cite for the claim, with the same side (Label-Only "
        "precision / recall / F1)",
        JUDGEMENT,
        "{abstract.label_only.precision:.3f} / {abstract.label_only.recall:.3f} / {abstract.label_only.f1:.3f}",
        XEON_AMX,
        commit="run.git_commit",
    ),
    Row(
        "evidence sentences shown for the papers that count that SciFact's annotators marked as evidence (sentence "
        "Selection precision / recall)",
        JUDGEMENT,
        "{sentence.selection.precision:.3f} / {sentence.selection.recall:.3f}",
        XEON_AMX,
        commit="run.git_commit",
    ),
    Row(
        "claims with a gold paper among the top 3 / top 5 retrieved (the claim and its opposite searched)",
        JUDGEMENT,
        "{retrieval.recall@3:.3f} / {retrieval.recall@5:.3f}",
        XEON_AMX,
        commit="run.git_commit",
    ),
    Row(
        "off-topic papers among those that count, on a hand-labelled set of 180 retrieved papers of 60 held-out "
        "train claims (the judge shipped at the file's commit)",
        "evals/results/bearing_set.json",
        "{off_topic_among_counted.shipped:.0%}",
        "none: a recorded replay, no model run",
    ),
    Row(
        "answer sentences (the default answer, one sentence per paper; 100 dev claims replayed) that their cited "
        "papers support: as the LLM drafted them, read by the sentence verifier / as shown after self-correction, "
        "read by a word check that uses no model",
        "evals/results/answer_per_paper/run5_shipped.json",
        "{strategies.per_paper.draft_supported:.2f} / {strategies.per_paper.shown_supported_independent:.2f}",
        "2-core x86-64, kind not recorded",
    ),
    Row(
        "seconds from Enter to the first (provisional) verdict, median / p95 (10 dev claims, `make bench`)",
        BENCH,
        "{embedded.verdict_seconds.median:.2f} / {embedded.verdict_seconds.p95:.2f}",
        XEON_AMX,
    ),
    Row(
        "seconds from Enter to the judged verdict (the LLM has read every paper), median / p95 (the same run)",
        BENCH,
        "{embedded.judged_seconds.median:.1f} / {embedded.judged_seconds.p95:.1f}",
        XEON_AMX,
    ),
    Row(
        "minutes from `git clone` to the chat open / to a first judged answer (fresh venv and data, packages at hand)",
        "evals/results/newcomer.json",
        newcomer_minutes,
        "2-core x86-64, kind not recorded",
    ),
]


def table(root: Path = REPO, rows: Sequence[Row] | None = None) -> str:
    """The Markdown table of ``rows`` (``ROWS`` when None), read from their files under ``root``."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in ROWS if rows is None else rows:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row.read(root)) + " |")
    return "\n".join(lines)


def with_table(readme: str, body: str) -> str:
    """``readme`` with ``body`` between its markers; ValueError when they are missing or out of order."""
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{README} lacks the markers {START} ... {END}")
    return readme[: start + len(START)] + "\n\n" + body + "\n\n" + readme[end:]


def main(argv: Sequence[str] | None = None, root: Path = REPO) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.readme_table", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when README.md differs from what it would write")
    args = parser.parse_args(argv)
    path = root / README
    old = path.read_text(encoding="utf-8")
    try:
        new = with_table(old, table(root))
    except (OSError, KeyError, ValueError, StopIteration) as e:
        print(f"readme_table: {e}", file=sys.stderr)
        return 2
    if args.check:
        if new != old:
            print(f"{README}'s table differs from the result files: run python -m evals.readme_table", file=sys.stderr)
            return 1
        return 0
    if new != old:
        path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
