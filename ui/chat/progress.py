"""Live Chainlit steps for one check: a step opens when its pipeline node starts and closes with the node's update;
the answer step streams the model's tokens. The steps sit, with their timings, inside one parent step, "How this was
checked", closed by default so that the verdict, the answer and its sources (messages of their own, outside it) come
first on screen; a click opens it. The verdict and its sources are shown as a message of their own the
moment the verdict is reached (marked provisional while the LLM reads which way each source points, or while its
search questions are to come), and the message is removed when the final answer comes."""

from __future__ import annotations

from typing import Any

import chainlit as cl
from chainlit.utils import utc_now

from agent.graph import NODE_NAMES
from ui.chat.render import early_markdown
from ui.chat.steps import STEP_NAMES, as_json, step_markdown
from ui.shared.untrusted import md, md_more

ORDER = NODE_NAMES
SECOND_PASS = " (searching again)"
PARENT = "How this was checked"


def following(node: str, update: dict[str, Any]) -> str | None:
    """The node expected to run after `node` (agent.graph's routing, read off the update): a provisional verdict is
    followed by what it awaits (the LLM's reading of direction, then the search questions), a verdict that rests on
    too little by a reformulated search, either by a second search when it adds queries, anything else by the next
    node."""
    if node == "verdict":
        v = update.get("verdict") or {}
        if v.get("provisional"):
            return "judge_sources" if v.get("awaiting") == "judgement" else "decompose"
        return "reformulate" if update.get("search_again") else "answer"
    if node == "judge_sources":
        return "verdict"
    if node == "decompose":
        return "retrieve" if update.get("queries") else "verdict"
    if node == "reformulate":
        return "retrieve" if update.get("round_queries") else "answer"
    at = ORDER.index(node) + 1 if node in ORDER else len(ORDER)
    return ORDER[at] if at < len(ORDER) and ORDER[at] not in ("judge_sources", "decompose", "reformulate") else None


class CheckProgress:
    def __init__(self) -> None:
        self.parent: cl.Step | None = None
        self.claim = ""
        self.current: tuple[str, cl.Step] | None = None
        self.second_pass = False
        self.evidence: list[dict[str, Any]] = []
        # the papers read so far (labelled, and read but not counted), whose designs the verdict's sentence names
        self.read: dict[str, list[dict[str, Any]]] = {"assessments": [], "silent": []}
        self.early: cl.Message | None = None
        self.early_text = ""  # the provisional verdict as sent, before any line on the paper being read
        self.streamed = ""  # the answer's tokens so far, as the model wrote them

    async def begin(self, claim: str) -> None:
        self.parent = cl.Step(name=PARENT, type="run", default_open=False)
        self.claim = claim
        self.parent.start = utc_now()
        await self.parent.send()
        await self._open(ORDER[0])

    async def _open(self, node: str) -> None:
        assert self.parent is not None
        again = self.second_pass and node not in ("judge_sources", "decompose", "reformulate")
        name = STEP_NAMES.get(node, node) + (SECOND_PASS if again else "")
        step = cl.Step(name=name, type="tool", parent_id=self.parent.id)
        step.start = utc_now()
        await step.send()
        self.current = (node, step)

    async def token(self, node: str, text: str) -> None:
        if self.current and self.current[0] == node == "answer" and text:
            await self.current[1].stream_token(md_more(self.streamed, text))
            self.streamed += text

    async def node_done(self, node: str, update: Any) -> None:
        if self.current is not None and self.current[0] != node:  # the routing took another way than expected
            await self.current[1].remove()
            self.current = None
        if self.current is None:
            await self._open(node)
        assert self.current is not None
        step = self.current[1]
        data = as_json(update)
        self.read |= {key: data[key] for key in self.read if key in data}
        step.output = step_markdown(node, {**self.read, **data} if node == "verdict" else data)
        step.end = utc_now()
        await step.update()
        self.current = None
        if node == "decompose" or (node == "reformulate" and data.get("round_queries")):
            self.second_pass = True
        if "evidence" in data:
            self.evidence = data["evidence"]
        if node == "verdict" and data.get("verdict"):
            if self.early is not None:
                await self.early.remove()
            again = bool(data.get("search_again"))
            shown = early_markdown(data["verdict"], self.evidence, again, self.read["assessments"], self.read["silent"])
            self.early = cl.Message(content=shown)
            self.early_text = shown
            await self.early.send()
        after = following(node, data)
        if after is not None:
            await self._open(after)

    async def reading(self, event: dict[str, Any]) -> None:
        """Which paper the LLM reads now, under the provisional verdict: "Reading paper 2 of 3 …"."""
        if self.early is None:
            return
        title = md(str(event.get("title", "")))
        self.early.content = (
            f"{self.early_text}\n\n📖 Reading paper {event.get('paper')} of {event.get('of')} with the LLM: _{title}_"
        )
        await self.early.update()

    async def finish(self, error: str | None = None) -> None:
        if self.current is not None:
            step = self.current[1]
            step.is_error, step.output, step.end = bool(error), md(error) if error else step.output, utc_now()
            await step.update()
        if self.early is not None and not error:  # the final answer replaces it; after a failure it stays
            await self.early.remove()
        if self.parent is not None:
            self.parent.is_error = bool(error)
            self.parent.output = md(error) if error else f"Checked: {md(self.claim)}"
            self.parent.end = utc_now()
            await self.parent.update()
