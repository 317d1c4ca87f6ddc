"""The dependencies of a thread-graph node: the run's context, or (LangGraph Studio gives none) the process's."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from langgraph.runtime import Runtime

from agent.service import load_deps
from agent.settings.app import get_settings
from agent.state import Deps, deps_or


@lru_cache(maxsize=1)
def process_deps() -> Deps:
    """Index, verifier and LLM from the settings, loaded once per process."""
    return load_deps(get_settings())


def deps_of(runtime: Runtime[Any]) -> Deps:
    """The thread graph declares no context schema, so that a run without one (LangGraph Studio) still works."""
    return deps_or(runtime.context, process_deps)
