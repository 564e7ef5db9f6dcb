"""Rate limits shared by every call through a pooled client: requests/tokens per minute, and one pause
for all calls after a 429 (honouring Retry-After) instead of each call retrying on its own.

The limiter's arithmetic is checked with a fake clock; its behaviour over HTTP against the loopback
server, whose requests are timestamped on arrival, so the assertions are about when calls reached
the server, never about how long a test slept."""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import pytest

from desktop.cli.common import UsageError
from desktop.cli.run import _rate_limits
from engine.llm._calls import retry_after
from engine.llm.base import LLMError, Message, Request, RetryNotice
from engine.llm.limits import (
    MAX_RETRY_AFTER_S,
    RateLimiter,
    RateLimits,
    estimate_tokens,
    limits_for,
    parse_limit,
)
from engine.llm.pool import ClientPool
from tests.loopback import Answer, Fail, LoopbackServer

KEY = "sk-test-0123456789abcdef"


class FakeClock:
    """A clock that only moves when the limiter sleeps; records every sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def limiter(clock: FakeClock, **limits: float) -> RateLimiter:
    return RateLimiter(RateLimits(**limits), clock=clock, sleep=clock.sleep)


def ask(text: str = "Your move?", *, max_tokens: int = 100) -> Request:
    return Request(model="loop-model", messages=(Message("user", text),), max_tokens=max_tokens)


# -- the limiter alone -----------------------------------------------------------------------------------


def test_requests_per_minute_spread_calls_evenly() -> None:
    clock = FakeClock()
    lim = limiter(clock, rpm=60)  # one a second, no burst beyond one
    starts = []

    async def main() -> None:
        for _ in range(5):
            await lim.acquire()
            starts.append(clock.now)

    asyncio.run(main())
    assert [round(t - starts[0], 6) for t in starts] == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_burst_is_one_second_of_the_limit() -> None:
    clock = FakeClock()
    lim = limiter(clock, rpm=600)  # 10 a second: 10 at once, then one every 0.1 s

    async def main() -> list[float]:
        out = []
        for _ in range(13):
            await lim.acquire()
            out.append(clock.now - 1000.0)
        return out

    times = asyncio.run(main())
    assert times[:10] == [0.0] * 10
    assert times[10:] == pytest.approx([0.1, 0.2, 0.3])


def test_tokens_per_minute_count_the_estimate_and_settle_the_actual_usage() -> None:
    clock = FakeClock()
    lim = limiter(clock, tpm=6000)  # 100 tokens a second, bucket of 100

    async def main() -> None:
        await lim.acquire(100)  # the full bucket
        assert clock.sleeps == []
        lim.settle(100, 40)  # the call used 40: 60 come back
        await lim.acquire(60)
        assert clock.sleeps == []  # fitted into what came back
        await lim.acquire(50)  # now it has to wait for 50 tokens: half a second
        assert clock.sleeps == [pytest.approx(0.5)]

    asyncio.run(main())


def test_a_call_larger_than_the_bucket_waits_for_a_full_bucket_only() -> None:
    clock = FakeClock()
    lim = limiter(clock, tpm=600)  # 10 a second

    async def main() -> None:
        await lim.acquire(500)  # bigger than the bucket (10): goes, leaves a debt of 490
        await lim.acquire(5)  # waits until the debt is paid and 5 are back: 49.5 s
        assert sum(clock.sleeps) == pytest.approx(49.5)

    asyncio.run(main())


def test_backoff_pauses_everyone_for_retry_after_and_doubles_without_it() -> None:
    clock = FakeClock()
    lim = limiter(clock, rpm=6000)
    assert lim.backoff(2.5) == pytest.approx(2.5)
    assert lim.backoff(1.0) == pytest.approx(2.5)  # a shorter wait does not shorten the pause
    assert lim.pauses == [(1000.0, 1002.5)]

    async def main() -> None:
        await lim.acquire()

    asyncio.run(main())
    assert clock.now == pytest.approx(1002.5)
    assert lim.backoff(None) == pytest.approx(4.0)  # the third 429 in a row without Retry-After: 1, 2, 4
    lim.settle(0, 0)  # a success resets the run of 429s
    assert lim.backoff(None) == pytest.approx(4.0)  # the pause already lasts longer than 1 s
    assert lim.rate_limited == 4


def test_a_huge_retry_after_is_capped() -> None:
    clock = FakeClock()
    lim = limiter(clock, rpm=60)
    assert lim.backoff(10_000.0) == pytest.approx(MAX_RETRY_AFTER_S)


def test_estimate_counts_prompt_images_and_answer_allowance() -> None:
    req = Request(model="m", messages=(Message("user", "x" * 400),), max_tokens=50)
    assert estimate_tokens(req) == 100 + 50


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"retry-after": "3"}, 3.0), ({"retry-after-ms": "250"}, 0.25), ({"retry-after": "soon"}, None),
     ({}, None)],
)
def test_retry_after_headers(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after(headers) == expected


def test_limits_pick_base_url_then_provider_then_every_server() -> None:
    table = {None: RateLimits(rpm=1), "openai": RateLimits(rpm=2), "http://h:1/v1": RateLimits(rpm=3)}
    assert limits_for(table, "local", "http://h:1/v1/") == RateLimits(rpm=3)
    assert limits_for(table, "openai", None) == RateLimits(rpm=2)
    assert limits_for(table, "anthropic", None) == RateLimits(rpm=1)
    assert limits_for(None, "openai", None) is None
    assert limits_for(RateLimits(), "openai", None) is None


def test_cli_rate_flags_become_limits_and_bad_ones_a_usage_error() -> None:
    args = argparse.Namespace(rpm=["500", "openai=60"], tpm=["openai=90000"])
    assert _rate_limits(args) == {None: RateLimits(rpm=500), "openai": RateLimits(rpm=60, tpm=90000)}
    assert _rate_limits(argparse.Namespace(rpm=None, tpm=None)) is None
    with pytest.raises(UsageError, match="--rpm takes a number above 0"):
        _rate_limits(argparse.Namespace(rpm=["openai=fast"], tpm=None))
    assert parse_limit("http://h:1/v1=30", "--rpm") == ("http://h:1/v1", 30.0)


# -- over HTTP, shared by every lease of a pool -------------------------------------------------------


class TimedServer(LoopbackServer):
    """The loopback server, noting when each request arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[float] = []

    def _record(self, rec: Any) -> None:
        with self._lock:
            self.arrivals.append(time.monotonic())
        super()._record(rec)


@pytest.fixture
def timed() -> Any:
    server = TimedServer().start()
    try:
        yield server
    finally:
        server.stop()


def pool_for(server: LoopbackServer, limits: RateLimits, **opts: Any) -> tuple[ClientPool, dict[str, Any]]:
    opts = {"api_key": KEY, "timeout_s": 10.0, **opts}
    return ClientPool(limits), opts


async def concurrent_calls(pool: ClientPool, spec: str, opts: dict[str, Any], n: int) -> list[Any]:
    """``n`` calls at once, each through its own lease (as ``n`` episodes of a batch make them)."""
    leases = [pool.lease(spec, **opts)[0] for _ in range(n)]
    notices: list[list[RetryNotice]] = [[] for _ in range(n)]
    try:
        results = await asyncio.gather(
            *(lease.complete(ask(), on_retry=notices[i].append) for i, lease in enumerate(leases)),
            return_exceptions=True,
        )
    finally:
        await pool.aclose()
    return list(zip(results, notices, strict=True))


def test_429s_pause_the_whole_pool_once_and_honour_retry_after(timed: TimedServer) -> None:
    n = 4
    timed.script(*[Fail(429, {"retry-after": "0.3"}) for _ in range(n)])
    timed.default = Answer("left")
    pool, opts = pool_for(timed, RateLimits(rpm=60000))
    spec = f"local:loop-model@{timed.openai_base_url}"
    lim_box: list[RateLimiter | None] = []

    async def main() -> list[Any]:
        pool.lease(spec, **opts)  # the limiter exists from the first lease
        lim_box.append(pool.limiter(spec, **opts))
        return await concurrent_calls(pool, spec, opts, n)

    outcomes = asyncio.run(main())
    lim = lim_box[0]
    assert lim is not None
    assert all(not isinstance(result, BaseException) and result.content == "left" for result, _ in outcomes)
    assert len(timed.posts()) == 2 * n  # each call: one 429, then one answer
    assert lim.rate_limited == n
    # One shared pause of Retry-After (the later 429s landed inside it and did not stack up).
    assert len(lim.pauses) == 1
    start, end = lim.pauses[0]
    assert end - start == pytest.approx(0.3, abs=0.05)
    # No call reached the server again before the pause was over, and every notice names the 429.
    assert all(t >= end - 0.01 for t in sorted(timed.arrivals)[n:])
    assert all([x.status for x in notices] == [429] for _, notices in outcomes)


def test_more_429s_than_a_call_has_retries_do_not_fail_the_calls(timed: TimedServer) -> None:
    # max_retries=1 would let each call see two 429s; six in a row, shared, still end in answers.
    timed.script(*[Fail(429, {"retry-after-ms": "40"}) for _ in range(6)])
    timed.default = Answer("down")
    pool, opts = pool_for(timed, RateLimits(rpm=60000), max_retries=1)
    spec = f"local:loop-model@{timed.openai_base_url}"
    outcomes = asyncio.run(concurrent_calls(pool, spec, opts, 2))
    assert [result.content for result, _ in outcomes] == ["down", "down"]
    assert len(timed.posts()) == 8
    assert sum(len(notices) for _, notices in outcomes) == 6


def test_a_429_without_sdk_retries_left_still_waits_for_the_shared_pause(timed: TimedServer) -> None:
    timed.script(Fail(429, {"retry-after-ms": "50"}))
    timed.default = Answer("up")
    pool, opts = pool_for(timed, RateLimits(rpm=60000), max_retries=0)
    spec = f"local:loop-model@{timed.openai_base_url}"
    [(result, notices)] = asyncio.run(concurrent_calls(pool, spec, opts, 1))
    assert result.content == "up" and result.retries == 1
    assert [n.status for n in notices] == [429]
    assert timed.arrivals[1] - timed.arrivals[0] >= 0.05 - 0.005


def test_a_server_that_keeps_refusing_fails_the_call_as_rate_limited(timed: TimedServer) -> None:
    timed.default = Fail(429, {"retry-after-ms": "1"})
    pool, opts = pool_for(timed, RateLimits(rpm=60000), max_retries=0)
    spec = f"local:loop-model@{timed.openai_base_url}"
    [(result, notices)] = asyncio.run(concurrent_calls(pool, spec, opts, 1))
    assert isinstance(result, LLMError) and result.kind == "rate_limit" and result.status == 429
    assert "shared pauses" in str(result)
    assert len(timed.posts()) == len(notices) + 1 == 9


def test_requests_per_minute_hold_across_concurrent_leases(timed: TimedServer) -> None:
    timed.default = Answer("left")
    rpm = 1200  # 20 a second: a burst of 20, then one every 50 ms
    pool, opts = pool_for(timed, RateLimits(rpm=rpm))
    spec = f"local:loop-model@{timed.openai_base_url}"
    outcomes = asyncio.run(concurrent_calls(pool, spec, opts, 26))
    assert all(result.content == "left" for result, _ in outcomes)
    arrivals = sorted(timed.arrivals)
    assert len(arrivals) == 26
    # In any stretch of time, at most a bucket plus what refills in it reached the server (give or take
    # the 30 ms a request may spend between the limiter and the server, connecting for the first time).
    rate, burst = rpm / 60, rpm / 60
    for i, first in enumerate(arrivals):
        for j in range(i, len(arrivals)):
            assert j - i + 1 <= burst + rate * (arrivals[j] - first + 0.03) + 1
    # ...and the six calls beyond the burst took their 50 ms turns.
    assert arrivals[-1] - arrivals[0] >= 5 * 0.05 - 0.01


def test_anthropic_429s_share_the_pause_too(timed: TimedServer) -> None:
    timed.script(Fail(429, {"retry-after-ms": "100"}), Fail(429, {"retry-after-ms": "100"}))
    timed.default = Answer("right")
    pool = ClientPool({"anthropic": RateLimits(rpm=60000)})
    opts = {"api_key": "sk-ant-test-0123456789abcdef", "base_url": timed.anthropic_base_url,
            "timeout_s": 10.0}
    outcomes = asyncio.run(concurrent_calls(pool, "anthropic:claude-test", opts, 2))
    assert [result.content for result, _ in outcomes] == ["right", "right"]
    later = sorted(timed.arrivals)[2:]
    assert len(later) == 2 and later[0] - sorted(timed.arrivals)[0] >= 0.1 - 0.01
