"""The chat's source choice (a multi-select in the chat settings), mapped to the `SOURCES` setting of a turn.

Every source ticked while the configured default is "auto" stays "auto" (unreachable live sources are skipped
quietly); any other choice is explicit, and a selected source that cannot be reached is stated in the answer."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import chainlit as cl
from chainlit.input_widget import InputWidget, MultiSelect

from agent.settings import Settings
from agent.state import Deps
from tools.live.config import AUTO, SOURCE_NAMES, parse_sources

WIDGET_ID = "sources"
LABELS = {
    "local": "Local index",
    "library": "Your library",
    "europepmc": "Europe PMC",
    "pubmed": "PubMed",
    "openalex": "OpenAlex",
    "s2": "Semantic Scholar",
}


def initial(settings: Settings) -> list[str]:
    return settings.live.selected_sources()[1]


def chosen(values: Any, settings: Settings) -> str:
    """The SOURCES value of a turn from the widget's value (a list of names); the configured one when unset."""
    if not isinstance(values, list) or not values:
        return settings.live.sources
    try:
        picked = parse_sources(",".join(str(v) for v in values))
    except ValueError:
        return settings.live.sources
    if settings.live.sources == AUTO and picked == ",".join(SOURCE_NAMES):
        return AUTO
    return picked


def turn_deps(deps: Deps, chat_settings: dict[str, Any] | None) -> Deps:
    """The process's deps with this chat's source choice."""
    value = chosen((chat_settings or {}).get(WIDGET_ID), deps.settings)
    if value == deps.settings.live.sources:
        return deps
    return replace(deps, settings=deps.settings.with_values(live={"sources": value}))


async def send_widget(settings: Settings) -> None:
    """Show the source choice in the chat settings; a resumed thread keeps the choice it had."""
    current = (cl.user_session.get("chat_settings") or {}).get(WIDGET_ID)
    values = [v for v in current if v in SOURCE_NAMES] if isinstance(current, list) else []
    widgets: list[InputWidget] = [
        MultiSelect(
            id=WIDGET_ID,
            label="Sources to search",
            items={LABELS[n]: n for n in SOURCE_NAMES},
            initial=values or initial(settings),
            description="Local index, your own documents (`claimtrace add`) and live literature services; unreachable "
            "ones are skipped with a note.",
        )
    ]
    await cl.ChatSettings(widgets).send()
