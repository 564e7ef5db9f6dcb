"""The generic search bot plays any perfect-information game through the contract alone."""

from __future__ import annotations

import asyncio

import pytest

import engine
from engine.bots.search import WIN, SearchTreeBot
from engine.match import Match
from engine.players import Observation
from engine.roster import make_player


def decide(bot: SearchTreeBot, state: engine.State, seat: int) -> dict[str, float]:
    obs = Observation(bot.game, state, seat, tuple(state.legal_actions(seat)))
    decision = asyncio.run(bot.act(obs))
    assert decision.values is not None
    return decision.values


def test_full_depth_search_agrees_with_perfect_tictactoe_play() -> None:
    game = engine.make("tictactoe")
    state = game.initial_state()
    for move in ("(0,0)", "(1,1)", "(0,1)"):
        state = state.apply(move)
    # O must block at (0,2); every other move lets X win.
    values = decide(SearchTreeBot(game, 0, depth=9), state, 1)
    assert max(values, key=values.__getitem__) == "(0,2)"
    assert all(v < -WIN / 2 for a, v in values.items() if a != "(0,2)")


def test_it_never_loses_to_random_play_and_draws_with_minimax() -> None:
    game = engine.make("tictactoe")
    for seed in range(4):
        match = Match(
            game, [SearchTreeBot(game, seed, depth=9), make_player("random", game, seed=seed)], seed=seed
        )
        assert asyncio.run(match.run()).winner in (0, None)
    match = Match(game, [make_player("minimax", game, seed=1), SearchTreeBot(game, 1, depth=9)], seed=1)
    assert asyncio.run(match.run()).winner is None


def test_chance_is_averaged_through_outcomes() -> None:
    game = engine.make("2048", size=3)
    state = game.initial_state(seed=5)
    values = decide(SearchTreeBot(game, 0, depth=1), state, 0)
    # At depth 1 each move is worth the expected score over every tile spawn it can lead to; the
    # merged sum does not depend on the spawn, so the average must equal the move's own gain.
    for action, value in values.items():
        assert value == pytest.approx(state.apply(action).scores[0])
    deeper = decide(SearchTreeBot(game, 0, depth=3), state, 0)
    assert set(deeper) == set(values) and any(deeper[a] > values[a] for a in values)


def test_it_refuses_games_it_cannot_search() -> None:
    class Hidden(type(engine.make("tictactoe"))):  # type: ignore[misc]
        perfect_information = False

    with pytest.raises(ValueError, match="needs its own bot"):
        SearchTreeBot(Hidden(), 0)
