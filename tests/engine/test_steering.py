"""Steering a match headless: hold, Ask, Re-ask, Accept, Override, cancel, Take over / Hand back, Fork.

Every scenario drives a real tic-tac-toe match under ``asyncio.run``: the simulated model (X, no
latency) against minimax, with no Qt. Waiting is on the steering's own change notifications
(:meth:`Steering.wait_for`), never on sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import pytest

import engine
from engine import events as ev
from engine.events import Event
from engine.match import Match
from engine.players import HUMAN, MODEL, Player
from engine.roster import make_player
from engine.steering import HOLD_NEVER, HeldDecision, Steering

T = TypeVar("T")
TIMEOUT = 10.0


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    async def bounded() -> T:
        async with asyncio.timeout(30):
            return await scenario()

    return asyncio.run(bounded())


def sim_vs_minimax(game: Any) -> list[Player]:
    return [make_player("sim", game, seed=3, latency=0), make_player("minimax", game, seed=4)]


class Steered:
    """A started match, its steering and everything it recorded."""

    def __init__(self, match: Match, steering: Steering) -> None:
        self.match = match
        self.steering = steering
        self.events: list[Event] = []
        steering.subscribe(self.events.append)
        self.task: asyncio.Task[Any] | None = None

    async def until(self, predicate: Callable[[], Any]) -> None:
        await self.steering.wait_for(predicate, timeout=TIMEOUT)

    async def model_turn(self) -> None:
        """Wait until the match is paused before the model's move."""
        s = self.steering
        await self.until(lambda: s.pacer.waiting and s.model_to_act() == 0)

    async def held(self, other_than: HeldDecision | None = None) -> HeldDecision:
        s = self.steering
        await self.until(
            lambda: s.pending is not None and (other_than is None or s.pending.call != other_than.call)
        )
        assert s.pending is not None
        return s.pending

    async def applied(self, count: int) -> None:
        await self.until(lambda: len(self.match.history) >= count)

    def of(self, type_: str, step: int | None = None) -> list[Event]:
        return [e for e in self.events if e.type == type_ and (step is None or e.step == step)]


@contextlib.asynccontextmanager
async def steered(
    players: Callable[[Any], list[Player]] = sim_vs_minimax, **options: Any
) -> AsyncIterator[Steered]:
    game = engine.make("tictactoe")
    match = Match(game, players(game), seed=1)
    options.setdefault("running", False)
    s = Steered(match, Steering(match, **options))
    s.task = asyncio.create_task(match.run())
    try:
        yield s
    finally:
        s.steering.close()
        if not s.task.done():
            s.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await s.task


def test_reask_keeps_both_samples_and_the_decision_names_the_call_that_was_played() -> None:
    async def scenario() -> tuple[Steered, HeldDecision, HeldDecision]:
        async with steered() as s:
            await s.model_turn()
            assert s.steering.ask()
            first = await s.held()
            assert s.match.state.step == 0 and not s.match.history  # held, not applied
            assert s.steering.reask()
            second = await s.held(other_than=first)
            assert s.steering.accept()
            await s.applied(1)
            return s, first, second

    s, first, second = run(scenario)
    assert second.call > first.call
    assert {first.call, second.call} <= {e.call for e in s.of(ev.ANSWER, 0)}  # both samples recorded
    [decision] = s.of(ev.DECISION, 0)
    assert decision.call == second.call  # not the first call, whose answer was not played
    assert decision.data["source"] == MODEL
    assert decision.data["action"] == second.action
    assert decision.data["accepted_call"] == second.call
    assert s.of(ev.ACTION_APPLIED, 0)[0].data["actions"] == {"0": second.action}


def test_an_override_is_the_humans_action_and_keeps_the_rejected_call() -> None:
    async def scenario() -> tuple[Steered, HeldDecision, str]:
        async with steered() as s:
            await s.model_turn()
            s.steering.ask()
            first = await s.held()
            s.steering.reask()
            second = await s.held(other_than=first)
            assert not s.steering.override("(9,9)")  # not a legal move: refused, still held
            assert s.steering.pending == second
            mine = next(a for a in s.steering.legal_for_person() if a != second.action)
            assert s.steering.override(mine)
            await s.applied(1)
            return s, second, mine

    s, rejected, mine = run(scenario)
    [override] = s.of(ev.OVERRIDE, 0)
    assert override.data == {
        "proposed": rejected.action, "action": mine, "by": "human", "rejected_call": rejected.call
    }
    assert override.call == rejected.call and override.seat == 0
    [decision] = s.of(ev.DECISION, 0)
    assert decision.data["source"] == HUMAN
    assert decision.data["action"] == mine
    assert decision.data["proposed"] == rejected.action and decision.data["rejected_call"] == rejected.call
    assert decision.call == rejected.call  # recorded on the sample it replaced, not on the first call
    assert s.of(ev.ACTION_APPLIED, 0)[0].data["actions"] == {"0": mine}


def test_cancel_then_ask_again_plays_the_new_calls_answer() -> None:
    async def scenario() -> tuple[Steered, int, HeldDecision]:
        async with steered() as s:
            await s.model_turn()
            client = s.steering.models[0].inner.client
            client.latency = 60  # a call that would not finish during the test
            assert s.steering.ask()
            await s.until(lambda: s.steering.busy)
            cancelled = s.steering.models[0].last_observation.call
            assert s.steering.cancel()
            await s.until(lambda: s.steering.waiting_to_resume)
            assert not s.steering.busy and not s.match.history and s.task is not None and not s.task.done()
            client.latency = 0
            assert s.steering.ask()
            held = await s.held()
            s.steering.accept()
            await s.applied(1)
            return s, cancelled, held

    s, cancelled, held = run(scenario)
    failed = [e for e in s.of(ev.MODEL_CALL_FAILED, 0) if e.call == cancelled]
    assert failed and failed[-1].data["kind"] == "cancelled"
    assert held.call != cancelled
    [decision] = s.of(ev.DECISION, 0)
    assert decision.call == held.call and decision.data["accepted_call"] == held.call


def test_take_over_hand_back_and_bots_stepped_by_hand() -> None:
    async def scenario() -> tuple[Steered, str]:
        async with steered() as s:
            st = s.steering
            await s.model_turn()
            assert st.take_over()
            assert st.taken_over(0) and st.seated(0).kind == HUMAN
            await s.until(lambda: st.waiting_human() is not None)
            mine = st.legal_for_person()[0]
            assert st.play(mine)
            await s.applied(1)
            await s.until(lambda: st.pacer.waiting)
            st.step()  # minimax (O) plays one step while paused
            await s.applied(2)
            await s.until(lambda: st.waiting_human() is not None)
            assert st.hand_back()
            assert not st.taken_over(0) and st.seated(0) is st.models[0]
            # The turn the person was waiting on goes back to the model, held while paused.
            held = await s.held()
            assert held.step == 2
            st.accept()
            await s.applied(3)
            return s, mine

    s, mine = run(scenario)
    assert [e.data["kind"] for e in s.of(ev.PLAYER_CHANGED)] == [HUMAN, MODEL]
    decisions = {e.step: e for e in s.of(ev.DECISION)}
    assert decisions[0].data["source"] == HUMAN and decisions[0].data["action"] == mine
    assert decisions[1].data["source"] == "bot"
    assert decisions[2].data["source"] == MODEL
    assert decisions[2].call in {e.call for e in s.of(ev.ANSWER, 2)}


def test_take_over_mid_call_then_hand_back_holds_the_decision_once() -> None:
    async def scenario() -> Steered:
        async with steered() as s:
            st = s.steering
            await s.model_turn()
            st.models[0].inner.client.latency = 60
            assert st.ask()
            await s.until(lambda: st.busy)
            assert st.take_over()
            await s.until(lambda: st.waiting_human() is not None)  # my turn at once, no Ask needed
            st.models[0].inner.client.latency = 0
            assert st.hand_back()
            held = await s.held()
            assert st.accept()
            assert st.pending is None  # answered: no longer held
            # Minimax's turn comes next, paused: the match waits for the pacer. A second hold of the
            # same decision would come before that, with nothing applied.
            await s.until(lambda: st.pending is not None or (len(s.match.history) == 1 and st.pacer.waiting))
            assert st.pending is None, f"{held} was held twice"
            return s

    s = run(scenario)
    assert len(s.of(ev.DECISION, 0)) == 1


def test_a_move_chosen_before_the_humans_turn_begins_is_kept_for_it() -> None:
    def minimax_vs_human(game: Any) -> list[Player]:
        return [make_player("minimax", game, seed=4), make_player("human", game)]

    async def scenario() -> tuple[Steered, list[bool]]:
        async with steered(minimax_vs_human, running=True) as s:
            taken: list[bool] = []

            def click_as_soon_as_minimax_moved(event: Event) -> None:
                if event.type == ev.ACTION_APPLIED and event.step == 0:
                    # The person's turn is next but their player is not waiting yet.
                    assert s.steering.waiting_human() is None and s.steering.human_to_act() == 1
                    taken.append(s.steering.play(next(iter(s.match.state.legal_actions(1)))))

            s.steering.subscribe(click_as_soon_as_minimax_moved)
            await s.applied(2)
            return s, taken

    s, taken = run(scenario)
    assert taken == [True]
    assert s.of(ev.DECISION, 1)[0].data["source"] == HUMAN


def test_fork_from_a_step_starts_a_new_match_with_the_history_as_the_engine_saw_it() -> None:
    async def scenario() -> tuple[Steered, Match, Any, list[Event]]:
        async with steered(running=True, hold=HOLD_NEVER) as s:
            await s.until(lambda: s.match.result is not None)
            point = s.steering.fork_point(2)
            game = s.match.game
            fork = s.steering.fork(
                [make_player("minimax", game, seed=5), make_player("minimax", game, seed=6)],
                step=2,
                forked_from={"session": "original"},
            )
            fork_events: list[Event] = []
            fork.subscribe(fork_events.append)
            await fork.run()
            return s, fork, point, fork_events

    s, fork, point, fork_events = run(scenario)
    assert point.step == 2 and point.state == s.match.history[2].state
    assert list(point.history) == s.match.history[:2]
    started = fork_events[0]
    assert started.type == ev.SESSION_STARTED and started.step == 2
    assert started.data["forked_from"] == {"session": "original", "step": 2}
    assert started.data["state"] == point.state.to_json()
    assert fork.history[:2] == s.match.history[:2]
    assert fork.result is not None and fork.result.steps == len(fork.history) - 2
    with pytest.raises(ValueError):
        s.steering.fork_point(99)


def test_running_headless_holds_nothing_and_meters_the_spend() -> None:
    async def scenario() -> Steered:
        async with steered(running=True) as s:
            await s.until(lambda: s.match.result is not None)
            return s

    s = run(scenario)
    assert s.match.result is not None and s.match.result.status == "completed"
    finished = s.of(ev.MODEL_CALL_FINISHED)
    assert finished and s.steering.spend.calls == len(finished)
    assert s.steering.spend.as_dict()["tokens"] == sum(
        e.data.get("input_tokens", 0) + e.data.get("output_tokens", 0) for e in finished
    )
    assert not s.of(ev.OVERRIDE)
    assert all("accepted_call" not in e.data for e in s.of(ev.DECISION))


def test_notices_and_refusals() -> None:
    notices: list[str] = []

    async def scenario() -> None:
        async with steered() as s:
            st = s.steering
            st.on_notice.append(lambda code, text: notices.append(code))
            assert not st.accept() and not st.reask() and not st.override("(0,0)")  # nothing held
            await s.model_turn()
            st.ask()
            await s.held()
            assert not st.ask()  # a decision is waiting
            st.accept()
            await s.until(lambda: len(s.match.history) == 1 and st.pacer.waiting)
            assert not st.ask()  # minimax is to act, not a model

    run(scenario)
    assert notices == ["decision_held", "no_model"]
