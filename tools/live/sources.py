"""The live sources and which of them a check uses: the settings' choice (`SOURCES`, `ask --sources`, the chat's
settings) narrowed to the hosts that answer a quick reachability probe.

"auto" = the local index plus every reachable live source; an offline machine says so once per process and
answers from the local index. An explicit choice states every selected source it cannot reach, once per check."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tools.corpus import Abstract
from tools.live import europepmc, openalex, pubmed, reach, s2
from tools.live.config import LIBRARY_SOURCE, LIVE_SOURCES, LiveSettings
from tools.live.http import LiveHttp

SearchFn = Callable[[LiveHttp, LiveSettings, str, int], Awaitable[list[Abstract]]]


@dataclass(frozen=True)
class LiveSource:
    name: str
    label: str
    url_setting: str  # the LiveSettings attribute holding its base URL
    search: SearchFn

    def base_url(self, settings: LiveSettings) -> str:
        return str(getattr(settings, self.url_setting))


REGISTRY: dict[str, LiveSource] = {
    src.name: src
    for src in (
        LiveSource(europepmc.NAME, europepmc.LABEL, "europepmc_base_url", europepmc.search),
        LiveSource(pubmed.NAME, pubmed.LABEL, "ncbi_base_url", pubmed.search),
        LiveSource(openalex.NAME, openalex.LABEL, "openalex_base_url", openalex.search),
        LiveSource(s2.NAME, s2.LABEL, "s2_base_url", s2.search),
    )
}
assert tuple(REGISTRY) == LIVE_SOURCES

_offline_stated = False
_offline_lock = threading.Lock()


@dataclass
class Selection:
    local: bool
    library: bool = False  # the user's documents (tools.index.library_search)
    live: list[LiveSource] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _labels(sources: list[LiveSource]) -> str:
    return ", ".join(s.label for s in sources)


def _state_offline_once() -> bool:
    global _offline_stated
    with _offline_lock:
        first, _offline_stated = not _offline_stated, True
        return first


def select_sources(settings: LiveSettings) -> Selection:
    """The sources of one check and the notes the user should read about the others."""
    auto, names = settings.selected_sources()
    wanted = [REGISTRY[n] for n in names if n in REGISTRY]
    selection = Selection(local="local" in names, library=LIBRARY_SOURCE in names)
    if not wanted:
        return selection
    up = reach.reachable({s.base_url(settings) for s in wanted}, timeout=settings.probe_timeout)
    selection.live = [s for s in wanted if up[s.base_url(settings)]]
    down = [s for s in wanted if not up[s.base_url(settings)]]
    seconds = f"{settings.probe_timeout:g} s"
    if down and not selection.live:
        local = selection.local or selection.library
        rest = "answered from the local index" if local else "no other source was selected"
        if not auto:
            selection.notes.append(
                f"The network is unreachable: {_labels(down)} did not answer within {seconds}; {rest}."
            )
        elif _state_offline_once():
            selection.notes.append(f"No live literature source is reachable (offline?); {rest}.")
    elif down:
        selection.notes.append(
            f"{_labels(down)} unreachable (no connection within {seconds}); answered from the other sources."
        )
    return selection


def reset_offline_note() -> None:
    """Let the next offline check state it again (tests)."""
    global _offline_stated
    with _offline_lock:
        _offline_stated = False
