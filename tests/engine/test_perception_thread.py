"""The board image for vision models is drawn off the event loop, with the same recorded events."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import engine
from engine import events as ev
from engine.agent.perception import Perception
from engine.events import Event
from engine.match import Match
from engine.roster import make_player

PNG = b"\x89PNG\r\n\x1a\nfake"


def _play(render: Any) -> list[Event]:
    game = engine.make("2048")
    player = make_player("sim:perfect", game, seed=3, latency=0, perception="both", reflection=False)
    match = Match(game, [player], seed=3, max_steps=2, render=render)
    events: list[Event] = []
    match.subscribe(events.append)
    asyncio.run(match.run())
    return events


def test_harness_renders_the_board_in_a_worker_thread() -> None:
    threads: list[threading.Thread] = []

    def render(state: Any, **_: Any) -> bytes:
        threads.append(threading.current_thread())
        return PNG

    events = _play(render)
    assert len(threads) == 2  # one image per decision
    assert all(t is not threading.main_thread() for t in threads)
    built = [e for e in events if e.type == ev.PROMPT_BUILT]
    assert [e.blobs["image"].data for e in built] == [PNG, PNG]
    assert built[0].data["perception"] == {"requested": "both", "used": "both"}


def test_loop_keeps_running_while_the_board_is_drawn() -> None:
    """A slow render must not block other coroutines (it would freeze the window)."""
    ticks: list[float] = []
    started = threading.Event()

    def slow_render(state: Any, **_: Any) -> bytes:
        started.set()
        threading.Event().wait(0.15)
        return PNG

    async def main() -> None:
        game = engine.make("2048")
        player = make_player("sim:perfect", game, seed=1, latency=0, perception="image", reflection=False)
        match = Match(game, [player], seed=1, max_steps=1, render=slow_render)

        async def ticker() -> None:
            loop = asyncio.get_running_loop()
            while True:
                await asyncio.sleep(0.01)
                if started.is_set():
                    ticks.append(loop.time())

        tick_task = asyncio.create_task(ticker())
        await match.run()
        tick_task.cancel()

    asyncio.run(main())
    # With a synchronous render the ticker could not run during the 150 ms drawing.
    assert len(ticks) >= 5


def test_events_match_the_synchronous_perception() -> None:
    sync = Perception("both")
    events = _play(lambda s, **_: PNG)
    built = next(e for e in events if e.type == ev.PROMPT_BUILT)

    class Obs:
        state = engine.make("2048").initial_state(3)
        seat = 0
        render = staticmethod(lambda s, **_: PNG)

    expected = sync.perceive(Obs())  # type: ignore[arg-type]
    assert built.data["perception"] == expected.to_data()
    assert built.blobs["image"].data == expected.image


def test_failed_render_in_thread_falls_back_to_text() -> None:
    def broken(state: Any, **_: Any) -> bytes:
        raise RuntimeError("no paint")

    events = _play(broken)
    built = next(e for e in events if e.type == ev.PROMPT_BUILT)
    assert built.data["perception"]["used"] == "text"
    assert "no paint" in built.data["perception"]["note"]
    assert "image" not in built.blobs
