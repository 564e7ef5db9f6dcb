"""GVGAI's planning baselines beside MCTS: rolling horizon evolution (``rhea``) and OLETS (``olets``).

They play legal moves under a time budget or a fixed number of iterations (seeded: reproducible), are
offered as bots of every VGDL game, and win PlayTrace's easy VGDL levels far more often than random play.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from engine import registry
from engine.bots.olets import OletsBot
from engine.bots.planning import Planner
from engine.bots.rhea import RheaBot
from engine.core import State
from engine.players import Observation
from engine.roster import make_player

PLANNERS: dict[str, type[Planner]] = {"rhea": RheaBot, "olets": OletsBot}
#: Small fixed budgets (iterations per move) that keep the tests quick and reproducible.
BUDGETS: dict[str, dict[str, int]] = {"rhea": {"iterations": 20, "horizon": 6}, "olets": {"iterations": 40}}


def play(state: State, choose: object) -> State:
    while not state.is_over:
        state = state.apply(choose(state))  # type: ignore[operator]
    return state


@pytest.mark.parametrize("spec", PLANNERS)
def test_every_vgdl_game_offers_the_planner_as_a_bot(spec: str) -> None:
    for game_id in ("vgdl", "vgdl-crates"):
        game = registry.make(game_id)
        assert spec in game.bots
        player = make_player(spec, game, seed=1)
        assert isinstance(player, PLANNERS[spec])


@pytest.mark.parametrize("spec", PLANNERS)
def test_a_time_budget_plays_legal_moves_until_the_game_ends(spec: str) -> None:
    game = registry.make("vgdl-keyhunt", level=1, max_steps=8)
    bot = make_player(spec, game, seed=3)
    assert isinstance(bot, Planner)
    bot.time_s = 0.01
    state = game.initial_state(seed=3)
    moves = 0
    while not state.is_over:
        observation = Observation(game=game, state=state, seat=0, legal_actions=tuple(state.legal_actions(0)))
        decision = asyncio.run(bot.act(observation))
        assert decision.action in observation.legal_actions
        assert decision.extra["iterations"] >= 1
        assert decision.rationale
        state = state.apply(decision.action)
        moves += 1
    assert moves == state.tick <= 8


@pytest.mark.parametrize("spec", PLANNERS)
def test_a_fixed_number_of_iterations_is_reproducible(spec: str) -> None:
    game = registry.make("vgdl-gems", level=0)
    state = game.initial_state(seed=5)
    first = PLANNERS[spec](game, seed=11, iterations=30).search(state)
    again = PLANNERS[spec](game, seed=11, iterations=30).search(state)
    assert first.iterations == again.iterations == 30
    assert first.action == again.action and first.line == again.line
    assert first.action in state.legal_actions()
    assert first.line and first.line[0] == first.action


@pytest.mark.parametrize("spec", PLANNERS)
@pytest.mark.parametrize("name", ["crates", "keyhunt"])
def test_the_planner_wins_an_easy_level_far_more_often_than_random_play(spec: str, name: str) -> None:
    game = registry.make(f"vgdl-{name}", level=0, max_steps=60)
    wins = 0
    for seed in (1, 2, 3):
        bot = PLANNERS[spec](game, seed=seed, **BUDGETS[spec])  # type: ignore[arg-type]
        wins += play(game.initial_state(seed=seed), lambda s, bot=bot: bot.search(s).action).won is True
    random_wins = 0
    for seed in range(6):
        rng = random.Random(seed)
        final = play(game.initial_state(seed=seed), lambda s, rng=rng: rng.choice(s.legal_actions()))
        random_wins += final.won is True
    assert wins >= 2
    assert wins / 3 >= random_wins / 6 + 0.3


def test_olets_keeps_the_chosen_subtree_for_the_next_move() -> None:
    game = registry.make("vgdl-crates", level=0, max_steps=30)
    bot = OletsBot(game, seed=2, iterations=50)
    state = game.initial_state(seed=2)
    result = bot.search(state)
    assert result.action is not None
    kept = bot._kept
    assert kept is not None and kept.visits >= 1
    after = state.apply(result.action)
    search = bot.start(after, 0)
    assert search.tree is kept  # type: ignore[attr-defined]
    # A state the kept tree does not stand for starts afresh.
    assert bot.start(state, 0).tree is not kept  # type: ignore[attr-defined]


def test_planners_refuse_games_with_more_than_one_seat_and_bad_settings() -> None:
    with pytest.raises(ValueError, match="single-player"):
        RheaBot(registry.make("tictactoe"))
    game = registry.make("vgdl-crates")
    with pytest.raises(ValueError, match="iterations"):
        OletsBot(game, iterations=0)
    with pytest.raises(ValueError, match="tournament"):
        RheaBot(game, population=4, tournament=5)
