"""Live Chainlit steps for one check: a step opens when its pipeline node starts and closes with the node's update;
the answer step streams the model's tokens."""

from __future__ import annotations

from typing import Any

import chainlit as cl
from chainlit.utils import utc_now

from agent.graph import PIPELINE
from ui.steps import STEP_NAMES, as_json, step_markdown

ORDER = [name for name, _ in PIPELINE]


class CheckProgress:
    def __init__(self) -> None:
        self.parent: cl.Step | None = None
        self.claim = ""
        self.current: tuple[str, cl.Step] | None = None

    async def begin(self, claim: str) -> None:
        self.parent = cl.Step(name="Checking the claim", type="run", default_open=True)
        self.claim = claim
        self.parent.start = utc_now()
        await self.parent.send()
        await self._open(ORDER[0])

    async def _open(self, node: str) -> None:
        assert self.parent is not None
        step = cl.Step(name=STEP_NAMES.get(node, node), type="tool", parent_id=self.parent.id)
        step.start = utc_now()
        await step.send()
        self.current = (node, step)

    async def token(self, node: str, text: str) -> None:
        if self.current and self.current[0] == node == "answer" and text:
            await self.current[1].stream_token(text)

    async def node_done(self, node: str, update: Any) -> None:
        if self.current is None or self.current[0] != node:
            await self._open(node)
        assert self.current is not None
        step = self.current[1]
        step.output = step_markdown(node, as_json(update))
        step.end = utc_now()
        await step.update()
        self.current = None
        following = ORDER.index(node) + 1 if node in ORDER else len(ORDER)
        if following < len(ORDER):
            await self._open(ORDER[following])

    async def finish(self, error: str | None = None) -> None:
        if self.current is not None:
            step = self.current[1]
            step.is_error, step.output, step.end = bool(error), error or step.output, utc_now()
            await step.update()
        if self.parent is not None:
            self.parent.is_error = bool(error)
            self.parent.output = error or f"Checked: {self.claim}"
            self.parent.end = utc_now()
            await self.parent.update()
