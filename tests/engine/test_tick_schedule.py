"""The fixed schedule of real-time ticks: a tick closes one tick after the previous one, whatever the
step's own work took; an early answer does not speed the game up; a loop that fell far behind starts
again from now (said in a debug log) instead of playing the missed ticks in a burst; an answer ready at
once is not beaten by a deadline that passed while the loop was busy."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

import engine
from engine import events as ev
from engine.events import Event
from engine.match import Match, TickSchedule
from engine.players import DEFAULT, Decision, HumanPlayer, Observation

TICK = 0.01


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_each_tick_closes_one_tick_after_the_previous_one_whatever_the_work_took() -> None:
    clock = FakeClock()
    ticks = TickSchedule(clock)
    assert ticks.due is None
    closes = []
    for work in (0.004, 0.009, 0.0, 0.007, 0.002):
        opens, close = ticks.open(TICK)
        closes.append(close)
        clock.now = close + work  # the tick timed out, then the step's work took ``work`` seconds
    assert closes == pytest.approx([100.0 + TICK * k for k in range(1, 6)], abs=1e-9)
    assert ticks.restarts == 0


def test_a_tick_answered_early_still_lasts_its_tick() -> None:
    clock = FakeClock()
    ticks = TickSchedule(clock)
    opens, closes = ticks.open(TICK)
    clock.now += 0.002  # the person answered at once
    next_opens, next_closes = ticks.open(TICK)
    assert next_opens == pytest.approx(closes) and next_opens > clock.now  # wait before asking again
    assert next_closes == pytest.approx(closes + TICK)


def test_a_little_behind_is_caught_up_and_far_behind_starts_again_from_now(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    ticks = TickSchedule(clock, catch_up=3)
    _, closes = ticks.open(TICK)
    clock.now = closes + 2.5 * TICK  # a slow step: two and a half ticks late
    opens, later = ticks.open(TICK)
    assert opens == pytest.approx(closes) and later < clock.now  # the schedule holds: it catches up
    assert ticks.restarts == 0
    clock.now = later + 10 * TICK  # far behind: no burst of ten ticks, a fresh start
    with caplog.at_level(logging.DEBUG, logger="engine.match"):
        opens, fresh = ticks.open(TICK)
    assert opens == clock.now and fresh == pytest.approx(clock.now + TICK)
    assert ticks.restarts == 1
    assert any("behind" in r.getMessage() and "starts again" in r.getMessage() for r in caplog.records)


def test_a_held_clock_extends_the_tick_and_reset_forgets_the_schedule() -> None:
    clock = FakeClock()
    ticks = TickSchedule(clock)
    _, closes = ticks.open(TICK)
    ticks.extend(closes + 0.5)  # paused for half a second
    assert ticks.due == pytest.approx(closes + 0.5)
    ticks.extend(closes)  # never earlier
    assert ticks.due == pytest.approx(closes + 0.5)
    ticks.reset()
    clock.now = 500.0
    assert ticks.open(TICK) == (500.0, pytest.approx(500.0 + TICK)) and ticks.restarts == 0
    with pytest.raises(ValueError, match="positive"):
        ticks.open(0)
    with pytest.raises(ValueError, match="catch_up"):
        TickSchedule(clock, catch_up=-1)


STEPS = 12


def _tetris(tick: float) -> Any:
    """Tetris in real time (a person who does nothing lets the piece fall each tick)."""
    return engine.make("tetris", realtime=tick)


def _stamped(match: Match) -> list[tuple[str, float, Event]]:
    """The match's events with the loop time each was emitted at."""
    stamped: list[tuple[str, float, Event]] = []
    match.subscribe(lambda e: stamped.append((e.type, asyncio.get_running_loop().time(), e)))
    return stamped


def test_the_step_work_does_not_lengthen_the_ticks_of_an_idle_person() -> None:
    game = _tetris(TICK)
    match = Match(game, [HumanPlayer()], seed=2, max_steps=STEPS)
    match.ticks.catch_up = 10_000  # a busy test machine must not restart the schedule here
    stamped = _stamped(match)
    dues: list[float] = []

    def slow_listener(event: Event) -> None:
        if event.type == ev.ACTION_APPLIED:
            dues.append(match.ticks.due or 0.0)
            time.sleep(TICK / 2)  # each step's work: half a tick (the old schedule added it to every tick)

    match.subscribe(slow_listener)
    result = asyncio.run(match.run())
    decisions = [e for t, _, e in stamped if t == ev.DECISION]
    assert result.steps == len(decisions) == len(dues) >= 10
    assert all(d.data["source"] == DEFAULT for d in decisions)
    # Tick k closes k ticks after the first one, exactly: the work did not push the schedule back.
    gaps = [b - a for a, b in zip(dues, dues[1:], strict=False)]
    assert gaps == pytest.approx([TICK] * len(gaps), abs=1e-9)
    # ... and no default was played before its tick closed.
    applied = [at for t, at, _ in stamped if t == ev.ACTION_APPLIED]
    # (the loop plays the default when less than a millisecond is left)
    assert all(at >= due - 1.5e-3 for at, due in zip(applied, dues, strict=True))


def test_answering_at_once_does_not_speed_the_game_up() -> None:
    tick = 0.005
    game = _tetris(tick)

    class Quick(HumanPlayer):
        async def act(self, observation: Observation) -> Decision:
            asyncio.get_running_loop().call_soon(self.submit, "no_op")
            return await super().act(observation)

    match = Match(game, [Quick()], seed=2, max_steps=STEPS)
    match.ticks.catch_up = 10_000
    stamped = _stamped(match)
    result = asyncio.run(match.run())
    turns = [at for t, at, _ in stamped if t == ev.TURN_STARTED]
    assert result.steps >= 10 and len(turns) == result.steps
    assert all(e.data["source"] == "human" for t, _, e in stamped if t == ev.DECISION)
    # Turn k is asked no earlier than k ticks after the first: one tick per tick, not one per answer.
    asked = [at for t, at, e in stamped if t == ev.DECISION]
    assert all(at >= asked[0] + k * tick - 1e-4 for k, at in enumerate(asked))
    assert asked[-1] - asked[0] >= (len(asked) - 1) * tick - 1e-4


def test_an_answer_ready_at_once_beats_a_deadline_that_passed_while_the_loop_was_busy() -> None:
    game = _tetris(TICK)

    class AlreadyClosed(TickSchedule):
        """Every tick opens already closed (the loop fell behind)."""

        def open(self, tick: float) -> tuple[float, float]:
            now = self._clock()
            return now, now - tick

    class Ready(HumanPlayer):
        async def act(self, observation: Observation) -> Decision:
            asyncio.get_running_loop().call_soon(self.submit, "no_op")
            return await super().act(observation)

    sources = {}
    for name, player in (("ready", Ready()), ("idle", HumanPlayer())):
        match = Match(game, [player], seed=2, max_steps=4)
        match.ticks = AlreadyClosed(match.ticks._clock)
        stamped = _stamped(match)
        asyncio.run(match.run())
        sources[name] = {e.data["source"] for t, _, e in stamped if t == ev.DECISION}
    assert sources == {"ready": {"human"}, "idle": {DEFAULT}}


def test_a_pause_does_not_count_as_falling_behind() -> None:
    game = _tetris(TICK)

    class Pausing(HumanPlayer):
        """Pauses the game for twenty ticks on the third tick, then lets it run."""

        async def act(self, observation: Observation) -> Decision:
            if observation.step == 2:
                match.hold_clock()
                asyncio.get_running_loop().call_later(20 * TICK, match.release_clock)
            return await super().act(observation)

    match = Match(game, [Pausing()], seed=2, max_steps=6)
    stamped = _stamped(match)
    asyncio.run(match.run())
    assert match.ticks.restarts == 0
    decisions = [e for t, _, e in stamped if t == ev.DECISION]
    assert len(decisions) == 6 and all(d.data["source"] == DEFAULT for d in decisions)
