"""The shared live HTTP layer: rate limiter spacing, Retry-After, retries, timeouts, cache; no real waiting."""

from __future__ import annotations

import asyncio
import email.utils
import json
import time
from pathlib import Path

import httpx
import pytest

from tests.live_fakes import Script, Sleeps, live_http, ok
from tools.live.http import (
    LiveHttp,
    MalformedResponse,
    RateLimiter,
    ResponseCache,
    SourceError,
    limiter_for,
    parse_retry_after,
)

URL = "https://api.test/search"


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def parse(body: str) -> dict:
    try:
        value = json.loads(body)
    except json.JSONDecodeError as e:
        raise MalformedResponse("not JSON") from e
    if not isinstance(value, dict):
        raise MalformedResponse("not an object")
    return value


def make_http(script: Script, tmp_path: Path, sleeps: Sleeps, **policy: float) -> LiveHttp:
    return live_http(script, tmp_path / "cache", sleeps, **policy)


def get(http: LiveHttp, params: dict | None = None) -> dict:
    async def go() -> dict:
        async with http.client:
            return await http.get(URL, params or {"q": "x"}, parse, rate=1.0)

    return asyncio.run(go())


# --- rate limiter -----------------------------------------------------------------------------------------------


def test_rate_limiter_spaces_requests_by_the_interval():
    clock = FakeClock()
    lim = RateLimiter(3.0, clock=clock)
    waits = [lim.reserve() for _ in range(4)]  # four requests at the same instant
    assert waits == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    clock.now += 10  # after a quiet spell the next request goes at once
    assert lim.reserve() == 0.0
    clock.now += 0.1  # ...and the one after waits out the rest of the interval
    assert lim.reserve() == pytest.approx(1 / 3 - 0.1)


def test_rate_limiter_acquire_sleeps_the_reserved_time():
    clock = FakeClock()
    lim = RateLimiter(2.0, clock=clock)
    sleeps = Sleeps()

    async def three() -> None:
        for _ in range(3):
            await lim.acquire(sleeps)

    asyncio.run(three())
    assert sleeps.waits == pytest.approx([0.5, 1.0])  # the first goes at once


def test_limiters_are_per_host_and_shared():
    a = limiter_for("https://eutils.test/entrez/esearch.fcgi", 3.0)
    assert limiter_for("https://eutils.test/entrez/efetch.fcgi", 3.0) is a
    assert limiter_for("https://other.test/x", 3.0) is not a
    assert limiter_for("https://eutils.test/entrez/efetch.fcgi", 10.0).interval == pytest.approx(0.1)


# --- Retry-After ------------------------------------------------------------------------------------------------


def test_parse_retry_after_seconds_and_http_date():
    assert parse_retry_after("7") == 7.0
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None


# --- retries ----------------------------------------------------------------------------------------------------


def test_429_waits_what_retry_after_says_then_succeeds(tmp_path):
    script = Script({"/search": [httpx.Response(429, headers={"Retry-After": "3"}), ok('{"n": 1}')]})
    sleeps = Sleeps()
    assert get(make_http(script, tmp_path, sleeps)) == {"n": 1}
    assert sleeps.waits == [3.0] and len(script.requests) == 2


def test_429_with_http_date_retry_after(tmp_path):
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    script = Script({"/search": [httpx.Response(429, headers={"Retry-After": when}), ok("{}")]})
    sleeps = Sleeps()
    get(make_http(script, tmp_path, sleeps))
    assert len(sleeps.waits) == 1 and 3.5 < sleeps.waits[0] <= 5.0


def test_retry_after_longer_than_allowed_gives_up_at_once(tmp_path):
    script = Script({"/search": [httpx.Response(429, headers={"Retry-After": "120"})]})
    sleeps = Sleeps()
    with pytest.raises(SourceError, match="HTTP 429, asked to retry after 120 s"):
        get(make_http(script, tmp_path, sleeps, max_wait=10.0))
    assert sleeps.waits == [] and len(script.requests) == 1


def test_500_then_success_backs_off(tmp_path):
    script = Script({"/search": [httpx.Response(500), httpx.Response(503), ok('{"n": 2}')]})
    sleeps = Sleeps()
    assert get(make_http(script, tmp_path, sleeps, backoff=0.5)) == {"n": 2}
    assert sleeps.waits == [0.5, 1.0]


def test_500_every_time_names_the_status_and_the_tries(tmp_path):
    script = Script({"/search": [httpx.Response(500)]})
    with pytest.raises(SourceError) as e:
        get(make_http(script, tmp_path, Sleeps(), tries=3))
    assert e.value.reason == "HTTP 500 after 3 tries" and len(script.requests) == 3


def test_timeout_is_retried_then_reported(tmp_path):
    script = Script({"/search": [httpx.ReadTimeout("slow")]})
    with pytest.raises(SourceError) as e:
        get(make_http(script, tmp_path, Sleeps(), tries=2, timeout=4.0))
    assert e.value.reason == "timed out after 4 s after 2 tries" and len(script.requests) == 2


def test_timeout_then_success(tmp_path):
    script = Script({"/search": [httpx.ConnectTimeout("slow"), ok('{"n": 3}')]})
    assert get(make_http(script, tmp_path, Sleeps())) == {"n": 3}


def test_client_errors_are_not_retried(tmp_path):
    script = Script({"/search": [httpx.Response(400, text="bad query")]})
    with pytest.raises(SourceError, match="HTTP 400"):
        get(make_http(script, tmp_path, Sleeps()))
    assert len(script.requests) == 1


def test_the_request_timeout_is_passed_to_httpx(tmp_path):
    seen = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return ok("{}")

    get(make_http(Script({"/search": [record]}), tmp_path, Sleeps(), timeout=2.5))
    assert seen[0]["read"] == 2.5 and seen[0]["connect"] == 2.5


# --- malformed bodies and the cache -----------------------------------------------------------------------------


def test_malformed_json_is_a_source_error_and_never_cached(tmp_path):
    script = Script({"/search": [ok("{not json"), ok('{"n": 4}')]})
    sleeps = Sleeps()
    with pytest.raises(SourceError, match="malformed response: not JSON"):
        get(make_http(script, tmp_path, sleeps))
    assert sleeps.waits == []  # a malformed body is not retried
    assert get(make_http(script, tmp_path, sleeps)) == {"n": 4}  # and was not cached


def test_second_identical_call_is_served_from_the_cache(tmp_path):
    script = Script({"/search": [ok('{"n": 5}')]})
    first = make_http(script, tmp_path, Sleeps())
    assert get(first, {"q": "x", "api_key": "secret-1"}) == {"n": 5}
    second = make_http(script, tmp_path, Sleeps())
    # a different key (or e-mail) is the same request: credentials are not part of the cache key
    assert get(second, {"q": "x", "api_key": "secret-2"}) == {"n": 5}
    assert len(script.requests) == 1 and first.requests == 1 and second.requests == 0
    stored = "".join(p.read_text() for p in (tmp_path / "cache").rglob("*.json"))
    assert "secret" not in stored
    get(make_http(script, tmp_path, Sleeps()), {"q": "other"})
    assert len(script.requests) == 2


def test_cache_entries_expire(tmp_path):
    now = [1000.0]
    cache = ResponseCache(tmp_path, ttl=60, clock=lambda: now[0])
    key = ResponseCache.key("GET", URL, {"q": "x"})
    cache.put(key, "body")
    assert cache.get(key) == "body"
    now[0] += 61
    assert cache.get(key) is None


def test_a_corrupt_cache_file_is_a_miss(tmp_path):
    cache = ResponseCache(tmp_path, ttl=60)
    key = ResponseCache.key("GET", URL, {})
    cache.put(key, "body")
    next(tmp_path.rglob("*.json")).write_text("{garbage")
    assert cache.get(key) is None
