"""While the judged verdict is pending, the chat says which paper the LLM reads ("Reading paper 2 of 3")."""

from __future__ import annotations

import asyncio
from typing import Any

from agent.graph import build_graph
from tests.conftest import direction_rules


def test_the_direction_node_says_which_paper_it_reads(make_deps) -> None:
    claim = "The MMR vaccine causes autism."
    deps = make_deps([*direction_rules(claim, supports=False), {"reply": "No link [1]."}],
                     {"not associated": "contradicts", "no relationship": "contradicts"})
    events = [data["reading"] for mode, data in build_graph().stream({"claim": claim}, context=deps,
                                                                      stream_mode=["custom", "updates"])
              if mode == "custom" and "reading" in data]
    assert [(e["paper"], e["of"]) for e in events] == [(1, 2), (2, 2)]
    assert all(e["title"] for e in events)


class Sent:
    """The provisional verdict message as the chat sent it (a stand-in for Chainlit's Message)."""

    def __init__(self) -> None:
        self.content = ""
        self.updates: list[str] = []

    async def update(self) -> None:
        self.updates.append(self.content)


def test_the_provisional_verdict_gets_one_line_on_the_paper_being_read() -> None:
    from ui.chat.progress import CheckProgress

    progress = CheckProgress()
    sent: Any = Sent()
    progress.early, progress.early_text = sent, "⏳ **Provisional:** Refuted by 1 cohort study."
    asyncio.run(progress.reading({"paper": 1, "of": 3, "title": "Statins *and* MI"}))
    asyncio.run(progress.reading({"paper": 2, "of": 3, "title": "Aspirin"}))
    assert sent.updates[-1] == ("⏳ **Provisional:** Refuted by 1 cohort study.\n\n📖 Reading paper 2 of 3 with the "
                                "LLM: _Aspirin_")
    assert "Statins \\*and\\* MI" in sent.updates[0]  # a title is data: its markup is shown, not applied
