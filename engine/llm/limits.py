"""Provider rate limits shared by every call through one client: requests and tokens per minute, and
one pause for everyone after a 429.

A batch run makes its model calls from many episodes at once through one client per provider and base
URL (:mod:`engine.llm.pool`). A :class:`RateLimiter` attached to that client paces the calls so that
the provider's requests-per-minute and tokens-per-minute limits hold across all of them, and when the
server answers 429 anyway it pauses *every* call through the client until the server's
``Retry-After`` has passed (or a shared exponential backoff when the server names no wait), instead of
each episode retrying on its own and hitting the limit again.

The buckets refill continuously (``limit / 60`` per second) and hold at most one second's worth, so
calls are spread evenly rather than sent in a burst at the start of each minute. A call's tokens are
estimated before it is sent (about four characters per token of prompt, plus the answer's
``max_tokens``, which is what providers count against the limit when the request arrives) and settled
with the usage the provider reports once it is done.

Written by hand rather than with a rate-limiting library: the token bucket must take an estimate up
front and settle it afterwards, and the 429 pause is shared with the same waiters; the libraries that
exist (aiolimiter, limits) do neither.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.llm.base import Request

__all__ = ["RateLimiter", "RateLimits", "estimate_tokens", "limits_for", "parse_limit"]

#: Tokens counted for an image in a request (providers count images by size; a board is about this).
IMAGE_TOKENS = 1000
#: Backoff after a 429 without Retry-After: 1 s, doubled for each 429 in a row, at most this long.
MAX_BACKOFF_S = 60.0
FIRST_BACKOFF_S = 1.0
#: The longest Retry-After honoured; a server asking for more gets this (the call may be asked again).
MAX_RETRY_AFTER_S = 120.0


@dataclasses.dataclass(frozen=True, slots=True)
class RateLimits:
    """A provider's limits: requests per minute and tokens per minute (``None``: not limited)."""

    rpm: float | None = None
    tpm: float | None = None

    def __post_init__(self) -> None:
        for name in ("rpm", "tpm"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a number above 0, not {value}")

    @property
    def limited(self) -> bool:
        return self.rpm is not None or self.tpm is not None


def parse_limit(text: str, flag: str) -> tuple[str | None, float]:
    """``"500"`` → ``(None, 500.0)`` (every server); ``"openai=500"`` or ``"http://host/v1=60"`` →
    ``(where, value)``: a provider name or a base URL, then the limit.

    Raises:
        ValueError: not a number above 0; the message names ``flag`` and the expected form.
    """
    where, sep, number = text.rpartition("=")
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{flag} takes a number above 0, or PROVIDER=N or BASE_URL=N, not {text!r}")
    return (where.strip() or None) if sep else None, value


def estimate_tokens(request: Request) -> int:
    """What a call may count against a tokens-per-minute limit when it is sent: its prompt (about four
    characters a token, images at :data:`IMAGE_TOKENS`) plus the answer's allowance."""
    chars = 0
    images = 0
    for message in request.messages:
        chars += len(message.text)
        images += len(message.images)
    budget = (request.thinking_budget or 0) if request.thinking else 0
    return math.ceil(chars / 4) + images * IMAGE_TOKENS + request.max_tokens + budget


class _Bucket:
    """A token bucket refilled at ``per_minute / 60`` per second up to one second's worth (at least 1)."""

    def __init__(self, per_minute: float, now: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self.stamp = now

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` fits (an amount above the capacity only needs a full bucket)."""
        need = min(amount, self.capacity) - self.level
        return 0.0 if need <= 1e-9 else need / self.rate


class RateLimiter:
    """Paces the calls through one client (see the module docstring).

    Args:
        limits: The provider's limits.
        clock: Monotonic seconds (tests pass a fake one together with ``sleep``).
        sleep: The coroutine that waits (``asyncio.sleep``).

    Attributes:
        rate_limited: 429 answers seen so far.
        pauses: The shared pauses, as ``(start, end)`` in ``clock`` time.
    """

    def __init__(
        self,
        limits: RateLimits,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self.limits = limits
        self._clock = clock
        self._sleep = sleep
        now = clock()
        self._requests = _Bucket(limits.rpm, now) if limits.rpm is not None else None
        self._tokens = _Bucket(limits.tpm, now) if limits.tpm is not None else None
        self._lock: asyncio.Lock | None = None
        self._paused_until = 0.0
        self._in_a_row = 0
        self.rate_limited = 0
        self.pauses: list[tuple[float, float]] = []

    def __repr__(self) -> str:
        return f"RateLimiter(rpm={self.limits.rpm}, tpm={self.limits.tpm})"

    @property
    def paused_until(self) -> float:
        """When the current shared pause ends (``clock`` time; in the past when there is none)."""
        return self._paused_until

    async def acquire(self, tokens: int = 0) -> None:
        """Wait until a call estimated at ``tokens`` may be sent, then count it.

        Callers are served in arrival order; a shared pause after a 429 holds all of them.
        """
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            while True:
                now = self._clock()
                wait = self._paused_until - now
                for bucket, amount in ((self._requests, 1.0), (self._tokens, float(tokens))):
                    if bucket is not None:
                        bucket.refill(now)
                        wait = max(wait, bucket.wait_for(amount))
                if wait <= 0:
                    break
                await self._sleep(wait)
            if self._requests is not None:
                self._requests.level -= 1.0
            if self._tokens is not None:
                self._tokens.level -= float(tokens)

    def settle(self, estimated: int, actual: int) -> None:
        """A call counted at ``estimated`` tokens used ``actual``: give back (or take) the difference."""
        if self._tokens is not None:
            self._tokens.refill(self._clock())
            self._tokens.level = min(self._tokens.capacity, self._tokens.level + estimated - actual)
        self._in_a_row = 0

    def backoff(self, wait_s: float | None) -> float:
        """The server answered 429: pause every call until ``wait_s`` from now (its ``Retry-After``) or,
        without one, for a backoff that doubles with each 429 in a row. Returns the seconds until the
        pause ends (an earlier, longer pause is kept)."""
        self.rate_limited += 1
        self._in_a_row += 1
        if wait_s is None or not math.isfinite(wait_s) or wait_s < 0:
            wait_s = min(MAX_BACKOFF_S, FIRST_BACKOFF_S * 2 ** (self._in_a_row - 1))
        wait_s = min(wait_s, MAX_RETRY_AFTER_S)
        now = self._clock()
        until = now + wait_s
        if until > self._paused_until:
            if self._paused_until > now and self.pauses:
                self.pauses[-1] = (self.pauses[-1][0], until)
            else:
                self.pauses.append((now, until))
            self._paused_until = until
        # The requests already counted for the calls that were refused are not given back: the server
        # counted them too.
        return self._paused_until - now


def limits_for(
    table: Mapping[str | None, RateLimits] | RateLimits | None, provider: str, base_url: str | None
) -> RateLimits | None:
    """The limits that apply to a client for ``provider`` at ``base_url``: the entry for its base URL,
    else for its provider, else the one for every server (key ``None``); ``None`` when unlimited."""
    if table is None:
        return None
    if isinstance(table, RateLimits):
        return table if table.limited else None
    entries = {(k.rstrip("/") if isinstance(k, str) and "://" in k else k): v for k, v in table.items()}
    keys: list[str | None] = [base_url.rstrip("/")] if base_url else []
    for key in [*keys, provider, None]:
        found = entries.get(key)
        if found is not None and found.limited:
            return found
    return None
