"""Mermaid diagrams of the compiled graphs, kept in docs/architecture.md between marker comments.

    python -m agent.diagram          # rewrite the diagrams in docs/architecture.md
    python -m agent.diagram --check  # exit 1 when they are out of date (tests/unit/test_architecture_doc.py)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def diagrams() -> dict[str, str]:
    """name -> Mermaid text, drawn by LangGraph from the compiled graphs."""
    from agent.followup.graph import build_thread_graph
    from agent.graph import build_graph

    return {
        "claim": build_graph().get_graph().draw_mermaid().strip(),
        "thread": build_thread_graph().get_graph().draw_mermaid().strip(),
    }


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- graph:{name} -->\n```mermaid\n)(.*?)(\n```\n<!-- /graph:{name} -->)", re.S)


def render(text: str) -> str:
    """`text` with every marked diagram replaced by the current one. Raises ValueError for a missing marker."""
    for name, mermaid in diagrams().items():
        match = _block(name).search(text)
        if match is None:
            raise ValueError(f"no <!-- graph:{name} --> block in the document")
        text = text[: match.start(2)] + mermaid + text[match.end(2) :]
    return text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = DOC.read_text(encoding="utf-8")
    current = render(text)
    if "--check" in args:
        if current != text:
            print(f"{DOC} is out of date: run `python -m agent.diagram`", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(current, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
