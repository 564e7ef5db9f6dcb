"""Batch runs (:mod:`engine.batch`): real games, real bots and the simulated model, played concurrently.

Nothing here touches the network (the autouse fixture refuses any connection) and nothing is written
to disk: the recorder keeps the events in memory.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import events as ev
from engine.batch import BatchOutcome, BatchPlan, BatchRunner, EpisodeStats, run_batch
from engine.events import Event
from engine.match import Match

#: The simulated model, with no streaming delay and a steep price so that a batch spends money.
PRICED_SIM = {
    "latency": 0, "reflection": False, "prices": {"input_per_mtok": 1000.0, "output_per_mtok": 1000.0}
}


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("a batch test tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield


class MemoryRecorder:
    """A :class:`engine.batch.Recorder` keeping every event in memory."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.events: list[Event] = []
        self.closed: list[str] = []

    @property
    def path(self) -> Path | None:
        return Path(f"memory/{self.match.seed}")

    def listener(self, event: Event) -> None:
        self.events.append(event)

    def close(self, status: str) -> None:
        self.closed.append(status)


class Recorders:
    """The recorder factory: one :class:`MemoryRecorder` per episode, kept by seed."""

    def __init__(self) -> None:
        self.made: dict[int, MemoryRecorder] = {}

    def __call__(self, match: Match) -> MemoryRecorder:
        assert match.seed is not None and match.seed not in self.made
        recorder = self.made[match.seed] = MemoryRecorder(match)
        return recorder


def play(plan: BatchPlan, **kwargs: Any) -> BatchOutcome:
    return asyncio.run(BatchRunner(plan, **kwargs).run())


def results(outcome: BatchOutcome) -> list[tuple[int, str, int, tuple[float, ...], int | None]]:
    return [(s.seed, s.status, s.steps, s.scores, s.winner) for s in outcome.stats]


def actions(recorder: MemoryRecorder) -> list[dict[str, str]]:
    return [e.data["actions"] for e in recorder.events if e.type == ev.ACTION_APPLIED]


# -- real batches ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["random", "greedy"])
def test_2048_batch_plays_every_episode_concurrently(spec: str) -> None:
    running: list[int] = []

    def on_event(stats: EpisodeStats, event: Event) -> None:
        running.append(sum(1 for s in runner.outcome.stats if s.status == "running"))

    plan = BatchPlan("2048", specs=[spec], episodes=5, seed=11, max_steps=40, concurrency=3)
    runner = BatchRunner(plan, record=Recorders(), on_event=on_event)
    outcome = asyncio.run(runner.run())
    assert outcome is runner.outcome
    assert [s.seed for s in outcome.stats] == [11, 12, 13, 14, 15]  # episode i uses seed S+i
    for s in outcome.stats:
        assert s.status in ("max_steps", "completed") and s.error is None
        assert 0 < s.steps <= 40 and len(s.scores) == 1
        assert s.path == Path(f"memory/{s.seed}")
    # At most three at once, and three did play at once.
    assert max(running) == 3
    agg = outcome.aggregate()
    assert agg["episodes"] == agg["finished"] == 5
    assert agg["steps"] == sum(s.steps for s in outcome.stats) == outcome.steps
    (seat,) = agg["seats"]
    scores = [s.scores[0] for s in outcome.stats]
    assert seat["spec"] == spec and seat["episodes"] == 5
    assert seat["mean"] == pytest.approx(statistics.fmean(scores))
    assert seat["sd"] == pytest.approx(statistics.stdev(scores))
    assert "wins" not in seat and "invalid_answers" not in seat  # one seat, no model
    assert outcome.labels and not outcome.interrupted and not outcome.budget_stopped


def test_tictactoe_sim_vs_minimax() -> None:
    plan = BatchPlan("tictactoe", specs=["sim", "minimax"], episodes=4, seed=0, concurrency=2,
                     model_options={"latency": 0})
    recorders = Recorders()
    outcome = play(plan, record=recorders)
    assert [s.status for s in outcome.stats] == ["completed"] * 4
    for s in outcome.stats:
        assert s.model_seats == frozenset({0})
        assert s.calls > 0  # the simulated model was asked (and reflected) at its turns
        # The winner the stats report is the final state's.
        final = recorders.made[s.seed].events[-1]
        assert final.type == ev.SESSION_FINISHED and final.data["winner"] == s.winner
    agg = outcome.aggregate()
    sim, minimax = agg["seats"]
    assert (sim["spec"], minimax["spec"]) == ("sim", "minimax")
    assert minimax["losses"] == 0  # perfect play never loses
    assert sim["wins"] == minimax["losses"] and sim["losses"] == minimax["wins"]
    assert sim["wins"] + sim["draws"] + sim["losses"] == 4
    assert sim["invalid_answers"] == sum(s.invalid.get(0, 0) for s in outcome.stats)
    assert "invalid_answers" not in minimax
    data = outcome.stats[0].to_data()
    assert data["session"] == "memory/0" and data["status"] == "completed" and data["seed"] == 0


@pytest.mark.parametrize(
    "game,specs,options",
    [("2048", ["random"], {}), ("tictactoe", ["sim", "minimax"], {"latency": 0})],
)
def test_seeds_give_the_same_results(game: str, specs: list[str], options: dict[str, Any]) -> None:
    runs = []
    for concurrency in (1, 3):  # the order in which episodes interleave does not matter
        recorders = Recorders()
        plan = BatchPlan(game, specs=specs, episodes=4, seed=7, max_steps=60, concurrency=concurrency,
                         model_options=options)
        outcome = play(plan, record=recorders)
        runs.append((results(outcome), {seed: actions(r) for seed, r in recorders.made.items()}))
    assert runs[0] == runs[1]
    other = play(BatchPlan(game, specs=specs, episodes=4, seed=8, max_steps=60, model_options=options))
    assert results(other)[:3] == runs[0][0][1:]  # seed 8 plays as the first batch's episode 1 did


def test_recorder_receives_every_event_in_order() -> None:
    seen: dict[int, list[Event]] = {}
    ended: list[int] = []

    def on_event(stats: EpisodeStats, event: Event) -> None:
        seen.setdefault(stats.seed, []).append(event)

    recorders = Recorders()
    plan = BatchPlan("tictactoe", specs=["sim", "minimax"], episodes=3, concurrency=3,
                     model_options={"latency": 0})
    outcome = play(plan, record=recorders, on_event=on_event, on_episode=lambda s: ended.append(s.index))
    assert sorted(ended) == [0, 1, 2]
    assert set(recorders.made) == set(seen) == {0, 1, 2}
    for s in outcome.stats:
        recorder = recorders.made[s.seed]
        assert recorder.events == seen[s.seed]  # the same events, in the same order
        types = [e.type for e in recorder.events]
        assert types[0] == ev.SESSION_STARTED and types[-1] == ev.SESSION_FINISHED
        assert {ev.PROMPT_BUILT, ev.MODEL_CALL_FINISHED, ev.DECISION, ev.ACTION_APPLIED} <= set(types)
        assert types.count(ev.ACTION_APPLIED) == s.steps
        assert recorder.closed == [s.status] == ["completed"]


# -- stopping ----------------------------------------------------------------------------------------------


def test_batch_budget_stops_new_episodes() -> None:
    notices: list[str] = []
    recorders = Recorders()
    plan = BatchPlan("2048", specs=["sim"], episodes=6, concurrency=2, max_steps=50, batch_budget=0.5,
                     model_options=PRICED_SIM)
    outcome = play(plan, record=recorders, on_notice=notices.append)
    assert outcome.budget_stopped and outcome.stopped == "batch budget $0.5000 exceeded"
    assert not outcome.interrupted
    statuses = [s.status for s in outcome.stats]
    assert statuses == ["aborted", "aborted", "skipped", "skipped", "skipped", "skipped"]
    assert all("batch budget $0.5000 exceeded" in s.notes for s in outcome.stats)
    assert outcome.cost_usd > 0.5 and outcome.aggregate()["cost_usd"] > 0.5
    # Only the two running episodes were ever recorded, and both records were closed as aborted.
    assert sorted(recorders.made) == [0, 1]
    assert all(r.closed == ["aborted"] for r in recorders.made.values())
    assert all(r.events[-1].data["status"] == "aborted" for r in recorders.made.values())
    assert notices == ["batch budget $0.5000 exceeded: stopping"]


def test_stop_lets_running_episodes_be_cancelled_and_skips_the_rest() -> None:
    plan = BatchPlan("2048", specs=["random"], episodes=5, concurrency=1, max_steps=10)

    def on_episode(stats: EpisodeStats) -> None:
        if stats.index == 1:
            runner.stop("enough")

    runner = BatchRunner(plan, on_episode=on_episode)
    outcome = asyncio.run(runner.run())
    assert [s.status for s in outcome.stats] == ["max_steps", "max_steps", "skipped", "skipped", "skipped"]
    assert outcome.stopped == "enough" and not outcome.budget_stopped and not outcome.interrupted
    assert outcome.stats[3].notes == ["enough"]
    assert outcome.aggregate()["finished"] == 2


def test_cancelling_the_run_aborts_running_episodes() -> None:
    recorders = Recorders()
    plan = BatchPlan("2048", specs=["random"], episodes=6, concurrency=2)
    runner = BatchRunner(plan, record=recorders)

    async def main() -> None:
        task = asyncio.create_task(runner.run())
        while runner.outcome.steps < 20:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    outcome = runner.outcome
    assert outcome.interrupted
    statuses = [s.status for s in outcome.stats]
    assert statuses[:2] == ["aborted", "aborted"] and set(statuses[2:]) == {"not started"}
    assert all(r.closed == ["aborted"] for r in recorders.made.values()) and len(recorders.made) == 2


# -- errors and the plan -------------------------------------------------------------------------------------


def test_an_episode_that_cannot_start_does_not_stop_the_batch() -> None:
    recorders = Recorders()

    def record(match: Match) -> MemoryRecorder:
        if match.seed == 1:
            raise OSError("disk full")
        return recorders(match)

    plan = BatchPlan("tictactoe", specs=["minimax", "random"], episodes=3)
    outcome = asyncio.run(run_batch(plan, record=record))
    assert [s.status for s in outcome.stats] == ["completed", "error", "completed"]
    assert outcome.stats[1].error == "disk full" and outcome.errors == 1
    assert outcome.aggregate()["finished"] == 2

    bad = asyncio.run(run_batch(BatchPlan("tictactoe", specs=["alphazero"], episodes=2)))
    assert [s.status for s in bad.stats] == ["error", "error"]
    assert "minimax" in (bad.stats[0].error or "")  # the message lists the choices


def test_plan_defaults_and_checks() -> None:
    plan = BatchPlan("tictactoe", specs=[" minimax "], episodes=10, seed=4)
    assert plan.concurrency == 4 and plan.seeds[:2] == [4, 5] and len(plan.seeds) == 10
    assert plan.specs == ["minimax"] and plan.seat_specs == ["minimax", "minimax"]
    assert not plan.has_model and BatchPlan("2048", specs=["sim:careless"]).has_model
    assert BatchPlan("2048", episodes=2).concurrency == 2
    for bad in ({"episodes": 0}, {"concurrency": 0}, {"max_steps": 0}, {"batch_budget": float("nan")},
                {"batch_budget": -1.0}):
        with pytest.raises(ValueError):
            BatchPlan("2048", **bad)
