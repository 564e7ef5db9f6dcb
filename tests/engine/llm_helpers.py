"""Plumbing shared by the provider tests (OpenAI and Anthropic clients against the loopback server)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from engine.llm.base import Completion, LLMClient, LLMError, Request
from tests.loopback import LoopbackServer

C = TypeVar("C", bound=LLMClient)
T = TypeVar("T")


def run(client: C, fn: Callable[[C], Awaitable[T]]) -> T:
    """Runs ``fn(client)`` in a fresh event loop and closes the client afterwards, whatever happens.

    Args:
        client: The client under test.
        fn: The coroutine function to drive with it.

    Returns:
        What ``fn`` returned.
    """

    async def main() -> T:
        try:
            return await fn(client)
        finally:
            await client.aclose()

    return asyncio.run(main())


def complete_with(client: LLMClient, request: Request) -> Completion:
    """Sends one request with ``client`` (then closes it) and returns the completion."""
    return run(client, lambda c: c.complete(request))


def failure_of(client: LLMClient, request: Request) -> LLMError:
    """Sends one request that must fail with an :class:`LLMError`, and returns that error."""
    with pytest.raises(LLMError) as info:
        complete_with(client, request)
    return info.value


def cancel_once_sent(loopback: LoopbackServer, client: LLMClient, request: Request) -> float:
    """Cancels a call as soon as the server has its request; returns how long the cancelling took (s).

    The call must end in :class:`asyncio.CancelledError`, not in an answer or another error.
    """

    async def scenario(c: LLMClient) -> float:
        task = asyncio.create_task(c.complete(request))
        while not loopback.posts():
            await asyncio.sleep(0.01)
        start = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - start

    return run(client, scenario)


def disconnects_seen(loopback: LoopbackServer, within_s: float = 3) -> int:
    """Waits up to ``within_s`` seconds for the server to see a client go away; returns how many did."""
    deadline = time.monotonic() + within_s
    while loopback.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    return loopback.disconnects
