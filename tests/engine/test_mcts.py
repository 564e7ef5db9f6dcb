"""The MCTS player on small single-player games built for the test, and on a registered game."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, ClassVar

import pytest

import engine.bots.mcts as mcts
from engine import registry
from engine.bots.mcts import MctsBot
from engine.core import Game, State, seats_of
from engine.players import Observation


@dataclasses.dataclass(frozen=True)
class Walk(State):
    """A corridor 0..length: reaching the end wins, stepping left of 0 falls into a pit and loses;
    coins on some cells add 1 to the score."""

    game_id: ClassVar[str] = "walk"
    pos: int = 0
    length: int = 6
    tick: int = 0
    cap: int = 30
    coins: frozenset[int] = frozenset()
    fell: bool = False

    @property
    def to_act(self) -> tuple[int, ...]:
        return () if self.fell or self.pos >= self.length or self.tick >= self.cap else (0,)

    @property
    def step(self) -> int:
        return self.tick

    def legal_actions(self, seat: int | None = None) -> list[str]:
        return [] if self.is_over else ["left", "stay", "right"]

    def apply(self, action: Any) -> Walk:
        pos = self.pos + {"left": -1, "stay": 0, "right": 1}[action]
        return dataclasses.replace(self, pos=max(pos, 0), fell=pos < 0, tick=self.tick + 1,
                                   coins=self.coins - {pos})

    @property
    def scores(self) -> tuple[float, ...]:
        return (0.0,)

    @property
    def winner(self) -> int | None:
        return 0 if self.pos >= self.length and not self.fell else None

    def text(self, seat: int | None = None) -> str:
        return f"at {self.pos}"

    def to_json(self) -> dict[str, Any]:
        return {"pos": self.pos}


@dataclasses.dataclass(frozen=True)
class Coins(Walk):
    """The corridor with coins to the left: the score counts coins picked up."""

    start_coins: frozenset[int] = frozenset()

    @property
    def scores(self) -> tuple[float, ...]:
        return (float(len(self.start_coins) - len(self.coins)),)


@dataclasses.dataclass(frozen=True)
class Dice(Walk):
    """The corridor where "right" moves one or two cells at random (two outcomes)."""

    def outcomes(self, action: Any) -> list[tuple[float, State]]:
        if action != "right":
            return [(1.0, self.apply(action))]
        one = self.apply("right")
        return [(0.5, one), (0.5, dataclasses.replace(one, pos=one.pos + 1))]


class WalkGame(Game):
    id: ClassVar[str] = "walk"
    title: ClassVar[str] = "Walk"
    seats = seats_of(["Walker"])
    start: ClassVar[State] = Walk()

    def initial_state(self, seed: int | None = None) -> State:
        return self.start

    def state_from_json(self, data: dict[str, Any]) -> State:
        return Walk(pos=data["pos"])


class PairGame(WalkGame):
    seats = seats_of(["A", "B"])


def play(bot: MctsBot, state: State) -> tuple[State, list[str]]:
    actions = []
    while not state.is_over:
        action = bot.search(state).action
        actions.append(action)
        state = state.apply(action)
    return state, actions


def test_mcts_walks_to_the_end_of_the_corridor():
    final, actions = play(MctsBot(WalkGame(), seed=1, iterations=200), Walk())
    assert final.winner == 0
    assert actions.count("right") == 6
    assert len(actions) <= 10


def test_mcts_never_steps_into_the_pit():
    bot = MctsBot(WalkGame(), seed=2, iterations=150)
    for seed in range(5):
        bot._rng.seed(seed)
        assert bot.search(Walk(pos=0)).action != "left"


def test_a_seeded_search_with_an_iteration_budget_is_reproducible():
    runs = [play(MctsBot(WalkGame(), seed=7, iterations=60), Walk())[1] for _ in range(2)]
    assert runs[0] == runs[1]


def test_mcts_goes_for_the_coin_before_the_exit():
    start = Coins(pos=9, coins=frozenset({8}), start_coins=frozenset({8}), length=40, cap=60)
    bot = MctsBot(WalkGame(), seed=3, iterations=400)
    result = bot.search(start)
    assert result.action == "left"
    assert result.visits["left"] == max(result.visits.values())


def test_chance_outcomes_are_sampled_not_read_from_the_state():
    final, actions = play(MctsBot(WalkGame(), seed=4, iterations=120), Dice())
    assert final.winner == 0
    assert set(actions) <= {"left", "stay", "right"}


def test_the_time_budget_bounds_a_search():
    result = MctsBot(WalkGame(), seed=5, time_s=0.01).search(Walk())
    assert result.iterations >= 1
    assert result.elapsed_s < 0.5


def test_mcts_refuses_a_game_with_two_seats():
    with pytest.raises(ValueError, match="2 seats"):
        MctsBot(PairGame(), seed=0)


@pytest.mark.parametrize("kwargs,message", [({"iterations": 0}, "iterations"), ({"time_s": 0}, "time_s"),
                                            ({"rollout_depth": -1}, "rollout_depth")])
def test_bad_budgets_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MctsBot(WalkGame(), seed=0, **kwargs)


def test_act_yields_to_the_event_loop_while_it_searches(monkeypatch):
    monkeypatch.setattr(mcts, "SLICE_S", 0.0)
    game = WalkGame()
    bot = MctsBot(game, seed=6, iterations=50)
    ticks = 0

    async def other() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async def main() -> Any:
        task = asyncio.create_task(other())
        await asyncio.sleep(0)
        seen = ticks
        decision = await bot.act(Observation(game, Walk(), 0, tuple(Walk().legal_actions())))
        task.cancel()
        return decision, ticks - seen

    decision, ran = asyncio.run(main())
    assert decision.action == "right"
    assert ran >= 40  # the other task ran between the search's slices
    assert decision.extra["iterations"] == 50
    assert "simulations" in decision.rationale


def test_mcts_plays_a_registered_chance_game():
    game = registry.make("2048")
    state = game.initial_state(seed=1)
    result = MctsBot(game, seed=1, iterations=6, rollout_depth=1).search(state)
    assert result.action in state.legal_actions()
    assert sum(result.visits.values()) == 6
