"""docs/architecture.md's module map cannot go stale: it names every module under agent/ and tools/, and names
none that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `((?:agent|tools)/[\w/]+\.py)` \| (.+) \|$", re.MULTILINE)


def modules() -> set[str]:
    found = set()
    for root in ("agent", "tools"):
        for path in (REPO / root).rglob("*.py"):
            if path.name == "__init__.py" and not path.read_text().strip():
                continue  # an empty package marker has no job of its own
            if path.name == "__init__.py" and path.parent.name in ("agent", "tools"):
                continue
            found.add(str(path.relative_to(REPO)))
    return found


def test_every_module_is_in_the_map_with_its_job():
    rows = dict(ROW.findall((REPO / "docs" / "architecture.md").read_text()))
    assert not sorted(modules() - set(rows)), "modules missing from docs/architecture.md's module map"
    assert not sorted(set(rows) - modules()), "docs/architecture.md lists modules that do not exist"
    assert all(len(job.split()) >= 2 for job in rows.values()), "a module's job in at least two words"


def test_the_page_draws_the_compiled_graphs():
    from agent import diagram

    assert diagram.main(["--check"]) == 0, "python -m agent.diagram redraws docs/architecture.md's diagrams"
