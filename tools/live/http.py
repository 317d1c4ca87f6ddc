"""What every live literature source shares: per-host rate limits, retries with backoff that honour Retry-After,
timeouts, and an on-disk response cache.

Only successful responses that parsed are cached (a malformed body is never stored). Cache keys are the sha256 of
method + URL + parameters *without* credentials (API keys, e-mail), so a key change does not empty the cache and no
secret is written to disk. Sleeping and both clocks are injectable so that tests never really wait.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

import httpx

log = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]

SECRET_PARAMS = frozenset({"api_key", "email", "mailto", "tool"})
USER_AGENT = "claimtrace/0.1 (scientific claim checking)"


class SourceError(RuntimeError):
    """A live source failed; `reason` is short and fit to show the user ("HTTP 500 after 3 tries")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MalformedResponse(ValueError):
    """The body is not in the format the source documents."""


class RateLimiter:
    """At most `per_second` request starts per second, shared by every task and thread of the process.

    Each caller reserves the next free slot under a lock and sleeps until it; so concurrent callers are spaced
    exactly 1/per_second apart and no burst ever exceeds the rate."""

    def __init__(self, per_second: float, clock: Clock = time.monotonic) -> None:
        if per_second <= 0:
            raise ValueError("per_second must be positive")
        self.interval = 1.0 / per_second
        self._clock = clock
        self._next = float("-inf")
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Seconds the caller must wait before its request may start."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
            return start - now

    async def acquire(self, sleep: Sleep = asyncio.sleep) -> None:
        delay = self.reserve()
        if delay > 0:
            await sleep(delay)


_limiters: dict[str, RateLimiter] = {}
_limiters_lock = threading.Lock()


def limiter_for(url: str, per_second: float) -> RateLimiter:
    """The process-wide limiter of the URL's host (created at the given rate on first use)."""
    host = urlparse(url).netloc.lower()
    with _limiters_lock:
        lim = _limiters.get(host)
        if lim is None or abs(lim.interval - 1.0 / per_second) > 1e-9:
            lim = _limiters[host] = RateLimiter(per_second)
        return lim


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP-date (RFC 9110). None when absent or
    unreadable; never negative."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class ResponseCache:
    """JSON files under `root`, one per request, named by the request's sha256; expired after `ttl` seconds."""

    def __init__(self, root: Path, ttl: float, clock: Clock = time.time) -> None:
        self.root = root
        self.ttl = ttl
        self._clock = clock

    @staticmethod
    def key(method: str, url: str, params: Mapping[str, Any]) -> str:
        public = sorted((k, str(v)) for k, v in params.items() if k not in SECRET_PARAMS)
        return hashlib.sha256(json.dumps([method.upper(), url, public]).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if self._clock() - float(entry["stored"]) > self.ttl:
                return None
            return str(entry["body"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, body: str) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"stored": self._clock(), "body": body}, fh)
            os.replace(tmp, path)
        except OSError as e:  # a full or read-only disk costs the cache, never the answer
            log.warning("live cache write failed: %s", e)

    def drop(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)


@dataclass(frozen=True)
class RetryPolicy:
    tries: int = 3
    backoff: float = 0.5  # first wait when the server names none; doubles per try
    max_wait: float = 10.0  # a longer Retry-After is not waited for: the source is reported unavailable
    timeout: float = 10.0  # per request


class LiveHttp:
    """GET with cache, per-host rate limit and retries; one instance per event loop (it owns an AsyncClient)."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        cache: ResponseCache | None,
        policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        limiters: Callable[[str, float], RateLimiter] = limiter_for,
    ) -> None:
        self.client = client
        self.cache = cache
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.limiters = limiters
        self.requests = 0  # network requests made (cache hits excluded)

    async def get(
        self,
        url: str,
        params: Mapping[str, Any],
        parse: Callable[[str], T],
        rate: float,
        headers: Mapping[str, str] | None = None,
    ) -> T:
        """Fetch, parse and cache. Raises SourceError with a short reason; MalformedResponse becomes one too."""
        key = ResponseCache.key("GET", url, params)
        if self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                try:
                    return parse(cached)
                except MalformedResponse:
                    self.cache.drop(key)
        body = await self._fetch(url, params, rate, headers)
        try:
            value = parse(body)
        except MalformedResponse as e:
            raise SourceError(f"malformed response: {e}") from e
        if self.cache is not None:
            self.cache.put(key, body)
        return value

    async def _fetch(
        self, url: str, params: Mapping[str, Any], rate: float, headers: Mapping[str, str] | None
    ) -> str:
        policy = self.policy
        limiter = self.limiters(url, rate)
        last = "no answer"
        for attempt in range(1, policy.tries + 1):
            await limiter.acquire(self.sleep)
            wait = policy.backoff * 2 ** (attempt - 1)
            self.requests += 1
            try:
                resp = await self.client.get(
                    url, params=dict(params), headers=dict(headers or {}), timeout=policy.timeout
                )
            except httpx.TimeoutException:
                last = f"timed out after {policy.timeout:g} s"
            except httpx.TransportError as e:
                last = f"connection failed: {type(e).__name__}"
            else:
                if resp.status_code == 200:
                    return resp.text
                if resp.status_code != 429 and resp.status_code < 500:
                    raise SourceError(f"HTTP {resp.status_code}")
                last = f"HTTP {resp.status_code}"
                asked = parse_retry_after(resp.headers.get("Retry-After"))
                if asked is not None:
                    if asked > policy.max_wait:
                        raise SourceError(f"HTTP {resp.status_code}, asked to retry after {asked:.0f} s")
                    wait = asked
            if attempt < policy.tries:
                log.info("%s: %s; retry %d in %.2f s", url, last, attempt, wait)
                await self.sleep(wait)
        raise SourceError(f"{last} after {policy.tries} tries")


def user_agent(contact_email: str | None) -> str:
    return f"{USER_AGENT[:-1]}; mailto:{contact_email})" if contact_email else USER_AGENT
