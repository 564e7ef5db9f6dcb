"""The asynchronous match loop: event order, human input, pacing, limits, forfeit and cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

import engine
from engine import events as ev
from engine.core import IllegalActionError
from engine.events import Event
from engine.match import Match, MatchResult, Pacer
from engine.players import BOT, Decision, HumanPlayer, Observation
from engine.roster import make_player

T = TypeVar("T")


def run(coro_fn: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(coro_fn())  # type: ignore[arg-type]


async def until(predicate: Callable[[], bool], limit: int = 2000) -> None:
    """Let the loop turn until ``predicate`` holds (fails the test instead of hanging)."""
    for _ in range(limit):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition not reached")


def collect(match: Match) -> list[Event]:
    events: list[Event] = []
    match.subscribe(events.append)
    return events


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def test_random_vs_minimax_event_sequence() -> None:
    game = engine.make("tictactoe")
    match = Match(game, [make_player("random", game, seed=1), make_player("minimax", game, seed=2)], seed=1)
    events = collect(match)
    result = run(match.run)

    assert result.status == "completed" and result.final_state.is_over
    assert result.winner in (1, None)  # minimax in seat 1 never loses
    names = types(events)
    assert names[0] == ev.SESSION_STARTED and names[-1] == ev.SESSION_FINISHED
    assert names.count(ev.SESSION_STARTED) == 1 and names.count(ev.SESSION_FINISHED) == 1
    applied = [e for e in events if e.type == ev.ACTION_APPLIED]
    assert len(applied) == result.steps == len(match.history)
    assert [e.step for e in applied] == list(range(result.steps))
    # Each step: turn_started, then the decision, then action_applied.
    assert names[1:-1] == [ev.TURN_STARTED, ev.DECISION, ev.ACTION_APPLIED] * result.steps
    start = events[0].data
    assert start["game"] == "tictactoe" and start["seed"] == 1
    assert [p["spec"] for p in start["players"]] == ["random", "minimax"]
    assert game.state_from_json(start["state"]) == game.initial_state()
    decisions = [e for e in events if e.type == ev.DECISION]
    for decision in decisions:
        if decision.seat == 1:
            assert decision.data["source"] == "bot" and decision.data["values"]
            assert decision.data["action"] in decision.data["values"]
            assert decision.data["rationale"]
    for decision, applied_event in zip(decisions, applied, strict=True):
        assert applied_event.data["actions"] == {str(decision.seat): decision.data["action"]}
    assert game.state_from_json(applied[-1].data["state"]) == result.final_state
    assert applied[-1].data["is_over"] and not applied[0].data["is_over"]
    assert events[-1].data == {
        "status": "completed",
        "scores": list(result.scores),
        "winner": result.winner,
        "steps": result.steps,
        # The final state's figures (tic-tac-toe's LVLM-Playground points for X).
        "metrics": result.final_state.metrics(),
    }
    assert events[-1].data["metrics"]["lvlm_points"] >= 10


def test_2048_match_rewards_follow_merged_sum() -> None:
    game = engine.make("2048")
    match = Match(game, [make_player("greedy", game, seed=3)], seed=3, max_steps=40)
    events = collect(match)
    result = run(match.run)
    applied = [e for e in events if e.type == ev.ACTION_APPLIED]
    assert sum(e.data["rewards"][0] for e in applied) == result.scores[0] == result.final_state.merged_sum
    assert result.status == "max_steps" and result.steps == 40


def test_human_submits_moves_when_waiting() -> None:
    game = engine.make("tictactoe")
    human = HumanPlayer()
    bot = make_player("minimax", game, seed=0)
    match = Match(game, [human, bot], seed=0)
    events = collect(match)
    rejected: list[bool] = []

    async def scenario() -> MatchResult:
        task = asyncio.create_task(match.run())
        assert human.submit("(0,0)") is False  # not asked yet
        while not task.done():
            await asyncio.sleep(0)
            obs = human.waiting
            if obs is None:
                continue
            taken = next((a for a in ("(0,0)", "(1,1)", "(2,2)") if a not in obs.legal_actions), None)
            if taken is not None:
                rejected.append(human.submit(taken))  # an occupied cell is refused
            assert human.submit(obs.legal_actions[0]) is True
        return await task

    result = run(scenario)
    assert result.status == "completed"
    assert result.winner in (1, None)
    assert rejected and not any(rejected)
    human_decisions = [e for e in events if e.type == ev.DECISION and e.seat == 0]
    assert human_decisions and all(e.data["source"] == "human" for e in human_decisions)
    assert all("latency_ms" in e.data for e in human_decisions)
    assert human.waiting is None


def test_paused_pacer_steps_once() -> None:
    game = engine.make("2048")
    pacer = Pacer(running=False)
    match = Match(game, [make_player("random", game, seed=4)], seed=4, pacer=pacer, max_steps=6)
    events = collect(match)

    def applied() -> int:
        return types(events).count(ev.ACTION_APPLIED)

    async def scenario() -> MatchResult:
        task = asyncio.create_task(match.run())
        for _ in range(50):
            await asyncio.sleep(0)
        assert applied() == 0 and not task.done()
        pacer.step_once()
        await until(lambda: applied() == 1)
        for _ in range(50):
            await asyncio.sleep(0)
        assert applied() == 1
        pacer.step_once()
        pacer.step_once()
        await until(lambda: applied() == 3)
        for _ in range(50):
            await asyncio.sleep(0)
        assert applied() == 3
        pacer.run()
        return await asyncio.wait_for(task, 5)

    result = run(scenario)
    assert result.status == "max_steps" and result.steps == 6 and applied() == 6


def test_pacer_delay_is_respected() -> None:
    game = engine.make("2048")

    async def scenario() -> float:
        match = Match(game, [make_player("random", game)], seed=0, pacer=Pacer(delay=0.02), max_steps=3)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await match.run()
        return loop.time() - started

    assert run(scenario) >= 0.06


def test_max_steps_status() -> None:
    game = engine.make("tictactoe")
    match = Match(
        game, [make_player("random", game, seed=0), make_player("random", game, seed=1)], max_steps=3
    )
    events = collect(match)
    result = run(match.run)
    assert result.status == "max_steps" and result.steps == 3 and not result.final_state.is_over
    assert events[-1].type == ev.SESSION_FINISHED and events[-1].data["status"] == "max_steps"


def test_cancellation_records_aborted() -> None:
    game = engine.make("tictactoe")
    human = HumanPlayer()
    match = Match(game, [make_player("random", game, seed=0), human])
    events = collect(match)

    async def scenario() -> None:
        task = asyncio.create_task(match.run())
        await until(lambda: human.waiting is not None)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(scenario)
    assert events[-1].type == ev.SESSION_FINISHED and events[-1].data["status"] == "aborted"
    assert events[-1].data["steps"] == 1
    assert match.result is not None and match.result.status == "aborted"
    assert human.waiting is None


class Quitter:
    kind = BOT
    spec = "quitter"
    label = "Quitter"

    async def act(self, observation: Observation) -> Decision:
        return Decision(None, forfeit=True, rationale="gives up")


class Cheater:
    kind = BOT
    spec = "cheater"
    label = "Cheater"

    async def act(self, observation: Observation) -> Decision:
        return Decision("(9,9)")


def test_forfeit_gives_the_other_seat_the_win() -> None:
    game = engine.make("tictactoe")
    match = Match(game, [make_player("random", game, seed=0), Quitter()])
    events = collect(match)
    result = run(match.run)
    assert result.status == "forfeit" and result.winner == 0 and result.steps == 1
    assert events[-1].data["winner"] == 0
    assert [e for e in events if e.type == ev.DECISION][-1].data["forfeit"] is True


def test_illegal_bot_action_is_recorded_as_error() -> None:
    game = engine.make("tictactoe")
    match = Match(game, [Cheater(), make_player("random", game, seed=0)])
    events = collect(match)
    with pytest.raises(IllegalActionError):
        run(match.run)
    assert ev.ERROR in types(events)
    assert events[-1].type == ev.SESSION_FINISHED and events[-1].data["status"] == "error"


def test_review_can_override_a_bot_decision() -> None:
    game = engine.make("tictactoe")

    async def review(obs: Observation, player: object, decision: Decision) -> Decision:
        # Always take the last legal cell instead of what the bot proposed.
        return Decision(obs.legal_actions[-1], source="human", rationale="override")

    match = Match(
        game, [make_player("minimax", game, seed=0), make_player("minimax", game, seed=1)], review=review
    )
    events = collect(match)
    run(match.run)
    first = [e for e in events if e.type == ev.ACTION_APPLIED][0]
    assert first.data["actions"] == {"0": "(2,2)"}


def test_fork_reports_only_the_steps_it_played() -> None:
    # A fork starts with the original's history; its session holds only the steps played after it,
    # so session_finished / MatchResult must count those (the session reader counts the same way).
    game = engine.make("tictactoe")
    players = [make_player("random", game, seed=0), make_player("random", game, seed=1)]
    original = Match(game, players, max_steps=2)
    run(original.run)
    fork = Match(game, players, state=original.state, history=original.history)
    events = collect(fork)
    result = run(fork.run)
    applied = [e for e in events if e.type == ev.ACTION_APPLIED]
    assert len(fork.history) == 2 + len(applied)
    assert result.steps == len(applied) == events[-1].data["steps"]


class Crasher:
    kind = BOT
    spec = "crasher"
    label = "Crasher"

    async def act(self, observation: Observation) -> Decision:
        raise RuntimeError("player bug")


def test_failing_listener_does_not_starve_the_others() -> None:
    # A listener that fails (a session writer on a full disk) must not keep the error and the
    # session_finished events from the other listeners, and the match still ends with a result.
    game = engine.make("tictactoe")
    match = Match(game, [make_player("random", game, seed=0), make_player("random", game, seed=1)])

    def broken(event: Event) -> None:
        if event.type == ev.ACTION_APPLIED:
            raise OSError(28, "No space left on device")

    match.subscribe(broken)
    events = collect(match)
    with pytest.raises(OSError):
        run(match.run)
    assert ev.ACTION_APPLIED in types(events)
    assert types(events)[-2:] == [ev.ERROR, ev.SESSION_FINISHED]
    assert events[-1].data["status"] == "error"
    assert match.result is not None and match.result.status == "error"


def _simultaneous_game() -> engine.Game:
    """A two-seat simultaneous game for the loop's tests: both seats pick "a" or "b", three rounds."""
    import dataclasses as dc

    from engine.core import Game, State, seats_of

    @dc.dataclass(frozen=True)
    class S(State):
        game_id = "both"
        n: int = 0

        @property
        def to_act(self) -> tuple[int, ...]:
            return () if self.n >= 3 else (0, 1)

        @property
        def step(self) -> int:
            return self.n

        def legal_actions(self, seat: int | None = None) -> list[str]:
            return [] if self.is_over else ["a", "b"]

        def apply(self, action: object) -> S:
            return S(self.n + 1)

        @property
        def scores(self) -> tuple[float, ...]:
            return (0.0, 0.0)

        def text(self, seat: int | None = None) -> str:
            return str(self.n)

        def to_json(self) -> dict[str, object]:
            return {"n": self.n}

    class G(Game):
        id = "both"
        title = "Both"
        seats = seats_of(["A", "B"])
        simultaneous = True

        def initial_state(self, seed: int | None = None) -> S:
            return S()

        def state_from_json(self, data: dict[str, object]) -> S:
            return S(int(data["n"]))  # type: ignore[call-overload]

    return G()


def test_simultaneous_failure_stops_the_other_seat() -> None:
    # When one seat's player fails, the other seat's pending decision is cancelled before the
    # session is finished, instead of running on and recording into a finished session.
    game = _simultaneous_game()
    human = HumanPlayer()
    match = Match(game, [human, Crasher()])
    events = collect(match)

    async def scenario() -> None:
        with pytest.raises(RuntimeError):
            await match.run()
        # Checked inside the loop: asyncio.run would cancel any leftover task on its way out.
        assert human._future is not None and human._future.cancelled()
        assert human.waiting is None

    run(scenario)
    assert events[-1].type == ev.SESSION_FINISHED and events[-1].data["status"] == "error"


def test_steering_hooks_attach_only_before_the_match_starts() -> None:
    game = engine.make("tictactoe")
    match = Match(game, [make_player("random", game, seed=1), make_player("random", game, seed=2)], seed=1)
    pacer = Pacer(running=True)
    quiet = make_player("random", game, seed=3)
    match.attach(pacer=pacer)
    match.seat(1, quiet)
    events: list[Event] = []
    match.subscribe(events.append)
    asyncio.run(match.run())
    assert match.pacer is pacer and match.players[1] is quiet
    assert not any(e.type == "player_changed" for e in events)  # seated silently, before the session
    with pytest.raises(RuntimeError, match="once the match has started"):
        match.seat(0, quiet)
    with pytest.raises(RuntimeError, match="once the match has started"):
        match.attach(pacer=Pacer())


class ScriptedHuman(HumanPlayer):
    """A person who, each time it is their turn, plays the next scripted move (``None``: take back)."""

    def __init__(self, script: list[str | None]) -> None:
        super().__init__()
        self.script = list(script)

    async def act(self, observation: Observation) -> Decision:
        item = self.script.pop(0)
        answer = (lambda: self.submit(item)) if item is not None else self.take_back
        asyncio.get_running_loop().call_soon(answer)
        return await super().act(observation)


def test_a_person_takes_back_moves_in_a_single_player_game_and_the_session_keeps_them(tmp_path: Any) -> None:
    import sessions
    from sessions import SessionWriter

    game = engine.make("2048")
    human = ScriptedHuman(["left", "right", None, "up", None, None, "down", "left", "up"])
    match = Match(game, [human], seed=5, undo=True, max_steps=3)
    writer = SessionWriter.for_match(tmp_path, match, title="undo")
    asyncio.run(match.run())
    writer.close()
    assert not human.script
    session = sessions.load_session(writer.path)
    kinds = [e["type"] for e in session.events if e["type"] in ("action_applied", "undo")]
    applied, undo = "action_applied", "undo"
    assert kinds == [applied, applied, undo, applied, undo, undo, applied, applied, applied]
    # The replay follows the line of play that stands; the log keeps every move taken back.
    assert [s["data"]["actions"]["0"] for s in session.steps] == ["down", "left", "up"]
    start = game.state_from_json(session.initial_state_json)
    assert session.state_at(2) == start.apply("down").apply("left")
    assert session.summary()["steps"] == 3


def test_undo_is_refused_where_the_match_does_not_allow_it() -> None:
    game = engine.make("2048")
    match = Match(game, [ScriptedHuman([None, "left"])], seed=5, max_steps=1)
    events: list[Event] = []
    match.subscribe(events.append)
    asyncio.run(match.run())
    assert not match.can_undo
    assert any(e.type == ev.ERROR and e.data["where"] == "undo" for e in events)
    assert [e.type for e in events].count(ev.ACTION_APPLIED) == 1
