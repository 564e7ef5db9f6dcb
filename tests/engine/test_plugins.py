"""Games as plug-ins: toy games installed as a separate distribution play through the whole engine.

The toys (``tests/plugins``) cover every kind of game the contract describes: hidden information
(``highcard``), three seats moving simultaneously (``triple``) and real time with a default action
(``dodge``). They are found through the ``playtrace.games`` entry point, exactly as a third party's
package would be.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import engine
import engine.gym
from engine import events as ev
from engine.conformance import ConformanceError
from engine.events import Event
from engine.match import Match
from engine.players import DEFAULT, Decision, HumanPlayer, Observation, RandomPlayer
from engine.roster import make_player
from tests.toys import BROKEN, TOY_GAMES, installed

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toys() -> Iterator[None]:
    with installed():
        yield


def run(match: Match) -> Any:
    return asyncio.run(match.run())


# -- discovery ------------------------------------------------------------------------------------


def test_no_file_of_playtrace_names_the_toys() -> None:
    """Adding the toys touched nothing of PlayTrace: no source or project file names them."""
    sources = [
        ROOT / "pyproject.toml",
        *(
            p
            for d in ("engine", "desktop", "renderers", "sessions", "assets")
            for p in (ROOT / d).rglob("*")
            if p.suffix in (".py", ".md", ".toml")
        ),
    ]
    named = [
        str(p.relative_to(ROOT))
        for p in sources
        if re.search(r"highcard|playtrace_toys", p.read_text("utf-8"))
    ]
    assert named == []


def test_toys_are_discovered_through_entry_points(toys: None) -> None:
    games = engine.list_games()
    assert {"2048", "tictactoe", *TOY_GAMES} <= set(games)
    entry = {e.id: e for e in engine.entries()}["highcard"]
    assert entry.distribution == "playtrace-toys" and entry.available
    assert engine.make("highcard").title == "High card"


def test_a_game_whose_dependency_is_missing_is_listed_with_its_install_command(toys: None) -> None:
    entry = {e.id: e for e in engine.entries()}["needsdep"]
    assert not entry.available and "playtrace_toys_missing_engine" in entry.problem
    # The pip of the Python PlayTrace runs on, not whichever pip is first on the PATH.
    assert entry.install == f"{shlex.quote(sys.executable)} -m pip install 'playtrace-toys[fancy]'"
    assert "needsdep" not in engine.list_games()
    with pytest.raises(
        engine.GameUnavailableError, match=r"install it with: .* -m pip install 'playtrace-toys\[fancy\]'"
    ):
        engine.make("needsdep")


def test_the_toys_leave_with_their_distribution() -> None:
    with installed():
        assert "triple" in engine.list_games()
    assert "triple" not in engine.list_games()
    with pytest.raises(engine.UnknownGameError, match=r"known games: 2048, .*tictactoe"):
        engine.make("triple")


# -- conformance ----------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", [*sorted(e.id for e in engine.entries()), *TOY_GAMES])
def test_every_game_passes_the_conformance_check(toys: None, game_id: str) -> None:
    report = engine.check_game(game_id)
    assert report.game_id == game_id and report.states > 0


def test_a_broken_game_fails_with_a_clear_message() -> None:
    with installed(BROKEN):
        with pytest.raises(ConformanceError) as caught:
            engine.check_game("brokentoy")
    message = str(caught.value)
    assert message.startswith("brokentoy does not conform to the game contract")
    for expected in (
        "initial_state(seed) is not the same twice",
        "observation reveals seat",
        "a nonsense action was accepted",
        "changed the state they were applied to",
        "state_from_json(to_json(s)) differs from s",
        "not deterministic",
    ):
        assert expected in message


def test_option_errors_name_the_option(toys: None) -> None:
    with pytest.raises(engine.OptionError, match="'length' must be at least 5"):
        engine.make("dodge", length=2)
    with pytest.raises(engine.OptionError, match="has no option 'speed'; its options: length"):
        engine.make("dodge", speed=3)
    assert engine.make("dodge", length=7).options == {"length": 7}


# -- hidden information ---------------------------------------------------------------------------


class Spy:
    """Wraps a player and keeps every observation it was handed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.kind, self.spec, self.label = inner.kind, inner.spec, inner.label
        self.seen: list[Observation] = []

    async def act(self, observation: Observation) -> Decision:
        self.seen.append(observation)
        decision: Decision = await self.inner.act(observation)
        return decision


def test_no_seat_receives_another_seats_card(toys: None) -> None:
    """Players, the simulated model's context, its prompts and its images get only their seat's view."""
    import renderers

    game = engine.make("highcard")
    fallback = renderers.fallback()
    for seed in range(12):
        spies = [
            Spy(make_player("sim", game, seed=seed, latency=0, perception="both")),
            Spy(make_player("cardsense", game, seed=seed)),
        ]
        match = Match(game, spies, seed=seed, render=lambda s, grid_labels=True: fallback.png(s, 96, 96))
        events: list[Event] = []
        match.subscribe(events.append)
        run(match)
        cards = match.history[0].state.cards if match.history else match.state.cards
        for seat, spy in enumerate(spies):
            other = cards[1 - seat]
            for obs in spy.seen:
                assert other not in str(obs.state.to_json()) and other not in obs.state.text(seat)
                assert all(other not in r.state.text(seat) for r in obs.history)
        for event in events:
            if event.type == ev.PROMPT_BUILT and event.seat is not None:
                other = cards[1 - event.seat]
                assert other not in event.data["user"] and other not in event.data["system"]
                view = match.history[0].state.observe(event.seat) if match.history else None
                if view is not None and "image" in event.blobs:
                    assert event.blobs["image"].data == fallback.png(view, 96, 96)
        # The session keeps the full state: both cards are in the recorded start state.
        start = next(e for e in events if e.type == ev.SESSION_STARTED)
        assert set(start.data["state"]["cards"]) == set(cards)


# -- simultaneous seats and forfeits --------------------------------------------------------------


def test_three_seats_play_simultaneously(toys: None) -> None:
    game = engine.make("triple")
    match = Match(
        game, [RandomPlayer(1), RandomPlayer(2), make_player("sim", game, seed=3, latency=0)], seed=1
    )
    events: list[Event] = []
    match.subscribe(events.append)
    result = run(match)
    assert result.status == "completed" and result.steps == 5 and len(result.scores) == 3
    applied = [e for e in events if e.type == ev.ACTION_APPLIED]
    assert all(set(e.data["actions"]) == {"0", "1", "2"} for e in applied)
    assert sum(result.scores) <= 5


class Quitter:
    kind, spec, label = "bot", "quitter", "Quitter"

    async def act(self, observation: Observation) -> Decision:
        return Decision(None, forfeit=True, rationale="gives up")


def test_a_forfeit_in_a_three_seat_game_names_the_seat_and_the_winner(toys: None) -> None:
    game = engine.make("triple")

    class Picks:
        kind, spec, label = "bot", "picks", "Picks"

        def __init__(self, pick: str) -> None:
            self.pick = pick

        async def act(self, observation: Observation) -> Decision:
            return Decision(self.pick)

    # Round 1: seat 0 picks 1 alone and scores; then seat 2 forfeits in round 2.
    class QuitsLater(Picks):
        async def act(self, observation: Observation) -> Decision:
            return Decision("3") if observation.step == 0 else Decision(None, forfeit=True)

    match = Match(game, [Picks("1"), Picks("2"), QuitsLater("3")], seed=0)
    events: list[Event] = []
    match.subscribe(events.append)
    result = run(match)
    assert result.status == "forfeit" and result.forfeited == (2,)
    assert result.winner == 0  # seats 0 and 1 remain, and seat 0 leads them 1 to 0
    finished = events[-1]
    assert finished.type == ev.SESSION_FINISHED and finished.data["forfeited"] == [2]

    tie = Match(game, [Quitter(), RandomPlayer(1), RandomPlayer(2)], seed=0)
    assert run(tie).winner is None  # two seats left on 0 points each: no winner


# -- real time ------------------------------------------------------------------------------------


def test_a_silent_human_plays_the_default_action_at_each_tick(toys: None) -> None:
    cls = engine.declaration("dodge")

    class FastDodge(cls):  # type: ignore[misc,valid-type]
        tick_s = 0.01  # the registered game's tick, shortened so the test takes milliseconds

    game = FastDodge(length=5)
    human = HumanPlayer()
    match = Match(game, [human], seed=2)
    events: list[Event] = []
    match.subscribe(events.append)
    result = run(match)
    decisions = [e for e in events if e.type == ev.DECISION]
    assert result.steps == len(decisions) and decisions
    assert all(
        d.data["source"] == DEFAULT and d.data["action"] == "stay" and d.data["timed_out"] for d in decisions
    )


def test_a_held_clock_waits_for_the_person_and_a_slower_tick_gives_more_time(toys: None) -> None:
    cls = engine.declaration("dodge")

    class FastDodge(cls):  # type: ignore[misc,valid-type]
        tick_s = 0.01

    game = FastDodge(length=5)

    class Paused(HumanPlayer):
        """The app pauses as the person is asked; they answer ten ticks later, then play resumes."""

        async def act(self, observation: Observation) -> Decision:
            match.hold_clock()
            assert match.clock_held

            def answer() -> None:
                self.submit("left")
                match.release_clock()

            asyncio.get_running_loop().call_later(0.1, answer)
            return await super().act(observation)

    match = Match(game, [Paused()], seed=2)
    events: list[Event] = []
    match.subscribe(events.append)
    run(match)
    decisions = [e.data for e in events if e.type == ev.DECISION]
    assert decisions and all(d["source"] == "human" and d["action"] == "left" for d in decisions)

    slow = Match(game, [HumanPlayer()], seed=2)
    slow.tick_scale = 3.0
    events.clear()
    slow.subscribe(events.append)
    run(slow)
    timed_out = [e.data for e in events if e.type == ev.DECISION]
    assert timed_out and all(d["deadline_s"] == pytest.approx(0.03) for d in timed_out)


def test_a_human_who_answers_in_time_plays_their_move(toys: None) -> None:
    cls = engine.declaration("dodge")

    class FastDodge(cls):  # type: ignore[misc,valid-type]
        tick_s = 0.01  # an early answer still waits for the next tick: a short tick keeps this fast

    game = FastDodge(length=5)

    class Quick(HumanPlayer):
        """Presses "left" as soon as it is asked (once its answer is awaited)."""

        async def act(self, observation: Observation) -> Decision:
            asyncio.get_running_loop().call_soon(self.submit, "left")
            return await super().act(observation)

    match = Match(game, [Quick()], seed=2)
    events: list[Event] = []
    match.subscribe(events.append)
    run(match)
    decisions = [e.data for e in events if e.type == ev.DECISION]
    assert decisions and all(d["source"] == "human" and d["action"] == "left" for d in decisions)


def test_models_play_turn_by_turn_unless_given_a_deadline(toys: None) -> None:
    game = engine.make("dodge", length=5)
    patient = Match(game, [make_player("sim", game, seed=1, latency=0.004, reflection=False)], seed=1)
    events: list[Event] = []
    patient.subscribe(events.append)
    run(patient)
    assert all(e.data["source"] == "model" for e in events if e.type == ev.DECISION)

    rushed = Match(
        game, [make_player("sim", game, seed=1, latency=0.05, reflection=False)], seed=1, deadline_s=0.01
    )
    events.clear()
    rushed.subscribe(events.append)
    run(rushed)
    sources = {e.data["source"] for e in events if e.type == ev.DECISION}
    assert sources == {DEFAULT}
    # The model's cancelled call is recorded as such, never left hanging.
    assert any(e.type == ev.MODEL_CALL_FAILED and e.data["kind"] == "cancelled" for e in events)


# -- Gymnasium ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", TOY_GAMES)
def test_toys_are_gymnasium_environments(toys: None, game_id: str) -> None:
    assert f"playtrace/{game_id}-v0" in gymnasium.registry
    env = gymnasium.make(f"playtrace/{game_id}-v0")
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert isinstance(obs, str) and info["legal"]
    total = 0.0
    for _ in range(50):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        if terminated:
            break
    assert terminated or game_id == "dodge"


def test_gymnasium_observes_only_the_agents_seat(toys: None) -> None:
    env = engine.gym.PlayTraceEnv("highcard", agent_seat=1)
    obs, _ = env.reset(seed=5)
    state = env.state
    assert state is not None
    assert state.cards[1] in obs and state.cards[0] not in obs
