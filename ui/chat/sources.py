"""The chat's search settings: the source choice (a multi-select, mapped to the `SOURCES` setting of a turn) and a
switch for searching again when the evidence is thin (`SEARCH_ROUNDS` 1 or 0).

Every source ticked while the configured default is "auto" stays "auto" (unreachable live sources are skipped
quietly); any other choice is explicit, and a selected source that cannot be reached is stated in the answer."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import chainlit as cl
from chainlit.input_widget import InputWidget, MultiSelect, Switch

from agent.settings.app import Settings
from agent.state import Deps
from tools.live.config import AUTO, SOURCE_NAMES, parse_sources

WIDGET_ID = "sources"
AGAIN_ID = "search_again"
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


def rounds(value: Any, settings: Settings) -> int:
    """SEARCH_ROUNDS of a turn from the switch: at least one round when on, none when off, the configured number when
    the switch was never set."""
    if not isinstance(value, bool):
        return settings.retrieval.search_rounds
    return max(1, settings.retrieval.search_rounds) if value else 0


def turn_deps(deps: Deps, chat_settings: dict[str, Any] | None) -> Deps:
    """The process's deps with this chat's source choice and search-again switch."""
    chat_settings = chat_settings or {}
    value = chosen(chat_settings.get(WIDGET_ID), deps.settings)
    again = rounds(chat_settings.get(AGAIN_ID), deps.settings)
    if value == deps.settings.live.sources and again == deps.settings.retrieval.search_rounds:
        return deps
    return replace(
        deps, settings=deps.settings.with_values(live={"sources": value}, retrieval={"search_rounds": again})
    )


def widgets(settings: Settings, kept: dict[str, Any]) -> list[InputWidget]:
    """The search settings, each with a one-line description (docs/ui.md says more), set to the choices in `kept`
    (a chat's settings so far) where it has them."""
    current = kept.get(WIDGET_ID)
    values = [v for v in current if v in SOURCE_NAMES] if isinstance(current, list) else []
    return [
        MultiSelect(
            id=WIDGET_ID,
            label="Sources to search",
            items={LABELS[n]: n for n in SOURCE_NAMES},
            initial=values or initial(settings),
            description="Where to look: the local index, your library and live literature services.",
        ),
        Switch(
            id=AGAIN_ID,
            label="Search again when the evidence is thin",
            initial=rounds(kept.get(AGAIN_ID), settings) > 0,
            description="When no source or only one bears on the claim with confidence, the LLM searches again once "
            "(slower).",
        ),
    ]


async def send_widget(settings: Settings) -> None:
    """Show the search settings in the chat; a resumed thread keeps the choices it had."""
    await cl.ChatSettings(widgets(settings, cl.user_session.get("chat_settings") or {})).send()
