"""Per-node wall-clock timing, merged into the state's `timings`."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any


def timed(name: str) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
    def wrap(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> dict[str, Any]:
            t0 = time.perf_counter()
            out = fn(*args, **kwargs)
            out.setdefault("timings", {})[name] = round(time.perf_counter() - t0, 3)
            return out

        return inner

    return wrap
