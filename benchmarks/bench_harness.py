"""Harness overhead per model step: everything PlayTrace does around a model call, minus the model.

A trivial client answers instantly with a canned valid answer (cycling through the four 2048 moves so
games keep going), so the time measured is the harness alone: reflection and memory bookkeeping,
perception, prompt rendering, event recording, parsing, verification, and the match loop applying
the move. Target: under 5 ms per step.

For comparison it also times the offline simulated model at ``latency=0``, whose figure includes the
built-in expectimax analysis it writes its reasoning from (that is the "model's" own time).

Usage::

    python benchmarks/bench_harness.py [--steps 500]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

import engine
from engine.agent.player import make_model_player
from engine.events import Event
from engine.llm.base import Completion, Delta, Request, RetryNotice, Usage
from engine.match import Match
from engine.players import Player

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


def report(name: str, timings: list[float]) -> float:
    mean = statistics.fmean(timings)
    p95 = sorted(timings)[int(0.95 * (len(timings) - 1))]
    print(f"{name:<48} mean {mean:6.3f} ms   median {statistics.median(timings):6.3f} ms   p95 {p95:6.3f} ms")
    return mean


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
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
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
