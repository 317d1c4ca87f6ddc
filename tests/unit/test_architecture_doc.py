"""docs/architecture.md shows the graphs as they are compiled: a change of nodes or edges fails here until
`python -m agent.diagram` redraws them."""

from __future__ import annotations

import pytest

from agent import diagram


def test_the_documented_graphs_are_current():
    text = diagram.DOC.read_text(encoding="utf-8")
    assert diagram.render(text) == text, "run `python -m agent.diagram` to redraw docs/architecture.md"


def test_a_stale_diagram_is_detected():
    text = diagram.DOC.read_text(encoding="utf-8")
    stale = text.replace("assess --> verdict;", "assess --> answer;")
    assert stale != text and diagram.render(stale) != stale
    with pytest.raises(ValueError):
        diagram.render("no markers here")
