"""Is a live host reachable? One TCP connect per host (through the configured HTTP proxy when there is one), all
at once in daemon threads, with one deadline for the lot: an offline machine is known within the timeout (2 s by
default), and a hung DNS lookup never holds the process up. Answers are remembered for `ttl` seconds."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Iterable
from urllib.parse import urlparse

_cache: dict[tuple[str, int], tuple[float, bool]] = {}
_lock = threading.Lock()


def target(url: str) -> tuple[str, int]:
    """Where a request to `url` connects first: the proxy for its scheme, unless the host bypasses it."""
    u = urlparse(url)
    host = u.hostname or ""
    port = u.port or (443 if u.scheme == "https" else 80)
    proxy = urllib.request.getproxies().get(u.scheme)
    if proxy and not urllib.request.proxy_bypass(host):
        p = urlparse(proxy if "://" in proxy else f"http://{proxy}")
        return p.hostname or host, p.port or 80
    return host, port


def _connect(addr: tuple[str, int], timeout: float, out: dict[tuple[str, int], bool]) -> None:
    try:
        with socket.create_connection(addr, timeout=timeout):
            out[addr] = True
    except OSError:
        out[addr] = False


def reachable(urls: Iterable[str], timeout: float = 2.0, ttl: float = 600.0) -> dict[str, bool]:
    """url -> whether its host accepted a TCP connection within `timeout` seconds (all probed concurrently)."""
    urls = list(urls)
    targets = {url: target(url) for url in urls}
    now = time.monotonic()
    with _lock:
        known = {t: ok for t, (at, ok) in _cache.items() if now - at < ttl}
    todo = sorted({t for t in targets.values() if t not in known and t[0]})
    if todo:
        found: dict[tuple[str, int], bool] = {}
        threads = [threading.Thread(target=_connect, args=(t, timeout, found), daemon=True) for t in todo]
        for th in threads:
            th.start()
        deadline = time.monotonic() + timeout
        for th in threads:
            th.join(max(0.0, deadline - time.monotonic()))
        stamp = time.monotonic()
        with _lock:
            for t in todo:
                ok = found.get(t, False)  # still connecting at the deadline: unreachable for us
                _cache[t] = (stamp, ok)
                known[t] = ok
    return {url: known.get(t, False) for url, t in targets.items()}


def forget() -> None:
    """Drop every remembered answer (tests; or after the network came back)."""
    with _lock:
        _cache.clear()
