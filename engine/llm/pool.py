"""Long-lived clients per provider and server, shared by every player of a batch.

Each model player of a batch used to build its own SDK client: a TLS context, a connection pool and
its connections per episode. A :class:`ClientPool` keeps the clients for each provider, base URL,
credentials and transport options for the whole batch and hands out *leases* (:class:`SharedClient`):
players use a lease like any :class:`~engine.llm.base.LLMClient`, closing a lease leaves the client
open for the next episode, and :meth:`ClientPool.aclose` closes every client at the end of the batch.
The pool also gives the clients of a provider or base URL that has limits one shared
:class:`~engine.llm.limits.RateLimiter`, so those limits hold across all concurrent episodes.

A server's players are spread over *lanes* of at most :data:`LANE_SIZE` concurrent leases, one SDK
client (one HTTP connection pool) each, made when the players outnumber the lanes and kept for the
batch. One pool for everyone does not scale: the HTTP pool looks at every one of its connections
(probing idle sockets) twice per request, so with 128 concurrent episodes on one pool that scan cost
more CPU per step than the rest of the HTTP stack.

The simulated model is never pooled: its client is per player (seeded, stateless about the network).

Example::

    pool = ClientPool(limits={"openai": RateLimits(rpm=500)})
    client, model = pool.lease("openai:gpt-4.1-mini", timeout_s=60)
    ...
    await pool.aclose()
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from engine.llm.base import Completion, Delta, LLMClient, Request, RetryNotice
from engine.llm.factory import make_client, parse_spec
from engine.llm.limits import RateLimiter, RateLimits, limits_for

__all__ = ["LANE_SIZE", "ClientPool", "SharedClient"]

#: Concurrent leases per SDK client (see the module docstring).
LANE_SIZE = 16

log = logging.getLogger("playtrace.llm")

# Besides provider, base URL and key: the options that make two clients different (make_client passes
# them on to the SDK).
_KEY_OPTIONS = ("timeout_s", "connect_timeout_s", "max_retries", "max_retry_wait_s")


class _Lane:
    """One SDK client of a pool and how many leases are using it now."""

    __slots__ = ("client", "leases")

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.leases = 0


class SharedClient:
    """A lease on a pooled client: calls go to the shared client; :meth:`aclose` ends only the lease."""

    def __init__(self, lane: _Lane) -> None:
        self._lane = lane
        self.inner = lane.client
        self.provider = self.inner.provider
        self.simulated = self.inner.simulated
        self._closed = False
        lane.leases += 1

    @property
    def base_url(self) -> str | None:
        return getattr(self.inner, "base_url", None)

    @property
    def limiter(self) -> RateLimiter | None:
        return getattr(self.inner, "limiter", None)

    def __repr__(self) -> str:
        return f"SharedClient({self.inner!r})"

    __str__ = __repr__

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion:
        return await self.inner.complete(request, on_delta=on_delta, on_retry=on_retry)

    async def aclose(self) -> None:
        """End the lease (its lane takes the next player); the pool closes the client itself."""
        if not self._closed:
            self._closed = True
            self._lane.leases -= 1


class ClientPool:
    """Clients shared by the players of a batch (see the module docstring).

    Args:
        limits: Rate limits: one :class:`~engine.llm.limits.RateLimits` for every server, or a mapping
            from a provider name (``"openai"``, ``"anthropic"``, ``"local"``) or a base URL to limits
            (key ``None``: every other server).
        make: Builds a client from a spec and options (:func:`engine.llm.factory.make_client`).
        lane_size: Concurrent leases per SDK client.
    """

    def __init__(
        self,
        limits: Mapping[str | None, RateLimits] | RateLimits | None = None,
        *,
        make: Callable[..., tuple[LLMClient, str]] = make_client,
        lane_size: int = LANE_SIZE,
    ) -> None:
        if lane_size < 1:
            raise ValueError("a lane takes at least 1 lease")
        self.limits = limits
        self.lane_size = lane_size
        self._make = make
        self._lanes: dict[tuple[Any, ...], list[_Lane]] = {}
        self._limiters: dict[tuple[Any, ...], RateLimiter | None] = {}

    def __len__(self) -> int:
        """How many clients are open."""
        return sum(len(lanes) for lanes in self._lanes.values())

    @property
    def clients(self) -> list[LLMClient]:
        """The open clients."""
        return [lane.client for lanes in self._lanes.values() for lane in lanes]

    def limiter(self, spec: str, **opts: Any) -> RateLimiter | None:
        """The rate limiter shared by the clients for ``spec`` (``None`` when its server has no limits
        or no lease was made yet)."""
        return self._limiters.get(self._key(spec, opts))

    def _key(self, spec: str, opts: Mapping[str, Any]) -> tuple[Any, ...]:
        parsed = parse_spec(spec)
        base_url = opts.get("base_url") or parsed.base_url
        return (parsed.provider, base_url, opts.get("api_key"), *(opts.get(name) for name in _KEY_OPTIONS))

    def lease(self, spec: str, **opts: Any) -> tuple[LLMClient, str]:
        """A lease on a client for ``spec`` and the bare model name (see
        :func:`engine.llm.factory.make_client` for the options): on the least used client for the same
        server, or on a new one when they all have :attr:`lane_size` leases.

        Raises:
            ValueError: the spec is malformed, or names the simulated model.
            LLMError: the client cannot be built (no key...).
        """
        parsed = parse_spec(spec)
        if parsed.provider == "sim":
            raise ValueError("the simulated model is not pooled; build one client per player")
        key = self._key(spec, opts)
        lanes = self._lanes.setdefault(key, [])
        lane = min(lanes, key=lambda lane: lane.leases, default=None)
        if lane is None or lane.leases >= self.lane_size:
            client, _ = self._make(spec, **opts)
            if key not in self._limiters:
                limits = limits_for(self.limits, parsed.provider, key[1])
                self._limiters[key] = RateLimiter(limits) if limits is not None else None
            if self._limiters[key] is not None:
                client.limiter = self._limiters[key]  # type: ignore[attr-defined]
            lane = _Lane(client)
            lanes.append(lane)
            log.debug("client %d for %s: %r", len(lanes), parsed.provider, client)
        return SharedClient(lane), parsed.model

    async def aclose(self) -> None:
        """Close every client (failures are only logged); the pool can lease new ones afterwards."""
        clients = self.clients
        self._lanes = {}
        self._limiters = {}
        for client in clients:
            try:
                await client.aclose()
            except Exception:  # noqa: BLE001  (closing a connection must not hide a batch's result)
                log.debug("closing %r failed", client, exc_info=True)
