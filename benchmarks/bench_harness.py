"""Harness overhead per model step: everything PlayTrace does around a model call, minus the model.

A trivial client answers instantly with a canned valid answer (cycling through the four 2048 moves so
games keep going), so the time measured is the harness alone: reflection and memory bookkeeping,
perception, prompt rendering, event recording, parsing, verification, and the match loop applying
the move. Target: under 5 ms per step.

For comparison it also times the offline simulated model at ``latency=0``, whose figure includes the
built-in expectimax analysis it writes its reasoning from (that is the "model's" own time).

A second section runs the real provider clients (:class:`~engine.llm.openai_client.OpenAIClient`,
:class:`~engine.llm.anthropic_client.AnthropicClient`, i.e. the official SDKs over HTTP) against the
loopback test server (``tests/loopback.py``) answering instantly with a valid streamed answer. The model's
own latency is zero there, so a step is HTTP + SDK + harness; the time spent inside ``client.complete``
is reported apart, and the difference is the harness's own share (target: under 5 ms per step).

Usage::

    python benchmarks/bench_harness.py [--steps 500] [--loopback-steps 200]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import pathlib
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

# Allow running the script directly from a checkout (the loopback server lives in tests/).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.agent.player import make_model_player  # noqa: E402
from engine.events import Event  # noqa: E402
from engine.llm.base import Completion, Delta, LLMClient, Request, RetryNotice, Usage  # noqa: E402
from engine.llm.factory import make_client  # noqa: E402
from engine.match import Match  # noqa: E402
from engine.players import Player  # noqa: E402

TARGET_MS = 5.0


class CannedClient:
    """Answers instantly: a valid two-line 2048 answer, or a short reflection."""

    provider = "fake"
    simulated = False

    def __init__(self) -> None:
        self._moves = itertools.cycle(["left", "down", "right", "up"])

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion:
        if request.purpose == "reflection":
            text = "The last move merged two tiles and kept the corner. Keep the big tile anchored."
        else:
            text = f"thought: keep the largest tile in its corner.\nmove: {next(self._moves)}"
        if on_delta is not None:
            # A real stream arrives in pieces; record a few, as the live panel would receive them.
            for piece in (text[:20], text[20:40], text[40:]):
                on_delta(Delta("content", piece))
        return Completion(text, usage=Usage(800, 30), model="canned")

    async def aclose(self) -> None:
        return None


def run_steps(
    make: Callable[[engine.Game], Player], steps: int, *, listener: Callable[[Event], None]
) -> list[float]:
    """Play ``steps`` steps (restarting finished games) and return the milliseconds each took."""
    timings: list[float] = []

    async def main() -> None:
        seed = 0
        while len(timings) < steps:
            game = engine.make("2048")
            match = Match(game, [make(game)], seed=seed)
            match.subscribe(listener)
            match.emit(match.start_event())
            while not match.state.is_over and len(timings) < steps:
                started = time.perf_counter()
                await match.play_step()
                timings.append((time.perf_counter() - started) * 1000)
            seed += 1

    asyncio.run(main())
    return timings


def _p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def report(name: str, timings: list[float]) -> float:
    mean = statistics.fmean(timings)
    print(
        f"{name:<48} mean {mean:6.3f} ms   median {statistics.median(timings):6.3f} ms   "
        f"p95 {_p95(timings):6.3f} ms"
    )
    return mean


# -- real provider clients against the loopback server ---------------------------------------------------

#: Fake, key-shaped credentials for the loopback server (it accepts anything).
_BENCH_KEYS = {"openai": "sk-bench-" + "0" * 40, "anthropic": "sk-ant-bench-" + "0" * 40}
_BENCH_MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-5"}


class TimedClient:
    """Wraps a provider client and adds up the wall time spent inside :meth:`complete`.

    The live ``on_delta`` callbacks (recording ``model_delta`` events) run inside ``complete`` and so
    count on the client's side; they are a few microseconds per piece.
    """

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.simulated = False
        self.spent_s = 0.0
        self.calls = 0

    async def complete(
        self,
        request: Request,
        *,
        on_delta: Callable[[Delta], None] | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> Completion:
        started = time.perf_counter()
        try:
            return await self.inner.complete(request, on_delta=on_delta, on_retry=on_retry)
        finally:
            self.spent_s += time.perf_counter() - started
            self.calls += 1

    async def aclose(self) -> None:
        await self.inner.aclose()


def _loopback_server() -> Any:
    """The loopback server answering every call at once with a valid, streamed 2048 answer."""
    from tests.loopback import Answer, LoopbackServer

    moves = itertools.cycle(["left", "down", "right", "up"])

    class InstantServer(LoopbackServer):
        def _next(self) -> Any:
            # Cycling the moves keeps games going (a move that changes nothing wastes the turn).
            text = f"thought: keep the largest tile in its corner.\nmove: {next(moves)}"
            return Answer(text, pieces=3, input_tokens=800, output_tokens=30)

    server = InstantServer().start()
    # The server writes the response head and each SSE chunk as separate small packets. With Nagle's
    # algorithm on, each write after the first waits for the client's (delayed) ACK, about 40 ms on
    # Linux, which would measure the test server rather than PlayTrace. Real servers do not do this.
    server._httpd.RequestHandlerClass.disable_nagle_algorithm = True
    return server


def _provider_client(provider: str, server: Any) -> LLMClient:
    base_url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    # The factory the app uses, so the benchmark builds its clients the same way.
    client, _ = make_client(
        f"{provider}:{_BENCH_MODELS[provider]}",
        api_key=_BENCH_KEYS[provider],
        base_url=base_url,
        max_retries=0,
    )
    return client


def run_loopback_steps(
    provider: str,
    server: Any,
    steps: int,
    options: dict[str, Any],
    *,
    listener: Callable[[Event], None],
    warmup: int = 10,
) -> tuple[list[float], list[float], int]:
    """Play ``warmup + steps`` 2048 steps with a real provider client over HTTP.

    Returns per measured step: the whole step's milliseconds, the milliseconds spent inside
    ``client.complete``, and the number of HTTP calls made in the measured steps.
    """
    whole: list[float] = []
    inside: list[float] = []
    calls = 0

    async def main() -> None:
        nonlocal calls
        # One client for the whole run (created inside the loop that uses it), as an app session does.
        client = TimedClient(_provider_client(provider, server))
        seed = 0
        played = 0
        try:
            while len(whole) < steps:
                game = engine.make("2048")
                model = _BENCH_MODELS[provider]
                player = make_model_player(f"{provider}:{model}", game, client=client, model=model, **options)
                match = Match(game, [player], seed=seed)
                match.subscribe(listener)
                match.emit(match.start_event())
                while not match.state.is_over and len(whole) < steps:
                    before_s, before_calls = client.spent_s, client.calls
                    started = time.perf_counter()
                    await match.play_step()
                    elapsed = (time.perf_counter() - started) * 1000
                    played += 1
                    if played > warmup:  # the first steps pay for connecting and lazy imports
                        whole.append(elapsed)
                        inside.append((client.spent_s - before_s) * 1000)
                        calls += client.calls - before_calls
                seed += 1
        finally:
            await client.aclose()

    asyncio.run(main())
    return whole, inside, calls


def loopback_section(steps: int, listener: Callable[[Event], None]) -> float:
    """Print the loopback figures; returns the worst mean harness share (ms per step)."""
    print()
    print(f"Harness overhead per model step with a zero-latency loopback server, 2048, {steps} steps each")
    print(
        "(real SDK clients over HTTP on 127.0.0.1; whole step = HTTP + SDK + harness; "
        "complete() = time inside client.complete; harness = whole - complete())"
    )
    configs: list[tuple[str, dict[str, Any]]] = [
        ("full harness", {}),
        ("no reflection", {"reflection": False}),
    ]
    worst_share = 0.0
    server = _loopback_server()
    # The Anthropic SDK warns about deprecated model names on every call; the name does not matter here.
    warnings.filterwarnings("ignore", message=r"The model .* is deprecated", category=DeprecationWarning)
    try:
        for provider in ("openai", "anthropic"):
            for name, options in configs:
                whole, inside, calls = run_loopback_steps(provider, server, steps, options, listener=listener)
                share = [w - i for w, i in zip(whole, inside, strict=True)]
                label = f"{provider} {name} ({calls / len(whole):.0f} call/step)"
                print(
                    f"{label:<40} whole mean {statistics.fmean(whole):6.3f} p95 {_p95(whole):6.3f} ms | "
                    f"complete() mean {statistics.fmean(inside):6.3f} p95 {_p95(inside):6.3f} ms | "
                    f"harness mean {statistics.fmean(share):6.3f} p95 {_p95(share):6.3f} ms"
                )
                worst_share = max(worst_share, statistics.fmean(share))
    finally:
        server.stop()
    verdict = "OK" if worst_share < TARGET_MS else "OVER TARGET"
    print(
        f"loopback: worst mean harness share {worst_share:.3f} ms per step "
        f"(target < {TARGET_MS} ms): {verdict}"
    )
    return worst_share


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument(
        "--loopback-steps",
        type=int,
        default=200,
        help="steps per configuration against the loopback server (0 skips that section)",
    )
    args = parser.parse_args(argv)
    kept: list[Event] = []

    def keep(event: Event) -> None:
        kept.append(event)  # a listener that holds every event, like the session writer's queue would
        if len(kept) > 10_000:
            kept.clear()

    configs: list[tuple[str, dict[str, Any]]] = [
        ("full harness (memory 10, reflection, text)", {}),
        ("memory 10, no reflection", {"reflection": False}),
        ("bare (no memory, no reflection)", {"reflection": False, "memory": 0}),
    ]
    print(f"PlayTrace harness overhead, 2048, {args.steps} steps per configuration (instant canned client)")
    worst = 0.0
    for name, options in configs:
        timings = run_steps(
            lambda game, o=options: make_model_player("openai:canned", game, client=CannedClient(), **o),
            args.steps,
            listener=keep,
        )
        worst = max(worst, report(name, timings))
    sim_steps = max(50, args.steps // 5)
    timings = run_steps(
        lambda game: make_model_player("sim", game, seed=1, latency=0), sim_steps, listener=keep
    )
    report(f"simulated model, latency 0 ({sim_steps} steps)", timings)
    verdict = "OK" if worst < TARGET_MS else "OVER TARGET"
    print(f"harness overhead: worst mean {worst:.3f} ms per step (target < {TARGET_MS} ms): {verdict}")
    if args.loopback_steps > 0:
        worst = max(worst, loopback_section(args.loopback_steps, keep))
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
