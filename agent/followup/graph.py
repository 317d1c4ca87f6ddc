"""The thread graph. This is the only place where its edges live.

START -> route -> check -> translate -> supplement -> END
               | sources | why | answer -> END
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.followup.answer import answer
from agent.followup.check import check
from agent.followup.route import route
from agent.followup.sources import sources
from agent.followup.state import ThreadState
from agent.followup.supplement import supplement
from agent.followup.translate import translate
from agent.followup.why import why
from tools.text.i18n import english

REPLIES = ["check", "sources", "why", "answer"]  # the route's actions, each the name of the node that replies


def build_thread_graph(checkpointer: Any = None) -> Any:
    builder = StateGraph(ThreadState)  # each node speaks English, whatever the chat around it speaks
    builder.add_node("route", english(route))
    builder.add_node("check", english(check))
    builder.add_node("sources", english(sources))
    builder.add_node("why", english(why))
    builder.add_node("answer", english(answer))
    builder.add_node("translate", english(translate))
    builder.add_node("supplement", english(supplement))
    builder.add_edge(START, "route")
    builder.add_conditional_edges("route", lambda s: s["action"], REPLIES)
    # a check's answer is kept (and shown) before the LLM translates it for a claim in another language, and before
    # it writes the generated summaries of its papers
    builder.add_edge("check", "translate")
    builder.add_edge("translate", "supplement")
    builder.add_edge("supplement", END)
    for name in REPLIES[1:]:
        builder.add_edge(name, END)
    return builder.compile(checkpointer=checkpointer, name="claimtrace-thread")


graph = build_thread_graph()  # for `langgraph dev` / LangGraph Studio (langgraph.json); it brings its own checkpointer
