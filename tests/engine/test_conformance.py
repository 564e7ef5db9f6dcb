"""Every registered game honours the engine contract (engine/core.py)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping

import pytest

import engine
from engine.core import Action, Game, Seat, State, StateFormatError

#: A random playout of any game must end within this many steps.
PLAYOUT_BOUND = 5_000
SEEDS = (0, 7)


def random_move(game: Game, state: State, rng: random.Random) -> Action | Mapping[Seat, Action]:
    if game.simultaneous:
        return {seat: rng.choice(state.legal_actions(seat)) for seat in state.to_act}
    return rng.choice(state.legal_actions())


def playout(game: Game, seed: int) -> list[State]:
    """States of one random game from ``initial_state(seed)``; actions drawn with RNG ``seed``."""
    rng = random.Random(seed)
    state = game.initial_state(seed=seed)
    states = [state]
    while not state.is_over:
        assert len(states) <= PLAYOUT_BOUND, f"{game.id}: random playout did not end in {PLAYOUT_BOUND} steps"
        state = state.apply(random_move(game, state, rng))
        states.append(state)
    return states


def dump(state: State) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


@pytest.fixture(params=engine.list_games())
def game(request: pytest.FixtureRequest) -> Game:
    return engine.make(request.param)


def test_registry_lists_the_builtin_games() -> None:
    assert {"2048", "tictactoe"} <= set(engine.list_games())
    for game_id in engine.list_games():
        assert engine.make(game_id).id == game_id


@pytest.mark.parametrize("seed", SEEDS)
def test_same_seed_same_game(game: Game, seed: int) -> None:
    first = playout(game, seed)
    second = playout(engine.make(game.id), seed)
    assert first == second
    assert [dump(s) for s in first] == [dump(s) for s in second]


@pytest.mark.parametrize("seed", SEEDS)
def test_playout_contract(game: Game, seed: int) -> None:
    states = playout(game, seed)
    assert states[-1].is_over
    for index, state in enumerate(states):
        assert state.step == index
        assert len(state.scores) == game.num_seats
        # JSON is real JSON and reads back to an equal state, at every step.
        restored = game.state_from_json(json.loads(dump(state)))
        assert restored == state
        assert dump(restored) == dump(state)
        assert isinstance(state.text(), str) and state.text()
        for seat in range(game.num_seats):
            assert isinstance(state.text(seat), str)
    for before, after in zip(states, states[1:], strict=False):
        transition = game.transition(before, after)
        assert len(transition.rewards) == game.num_seats


def test_every_legal_action_applies_and_apply_is_pure(game: Game) -> None:
    states = playout(game, 3)
    rng = random.Random(3)
    for state in states[:-1]:
        snapshot = dump(state)
        seats = state.to_act
        assert seats
        for seat in seats:
            legal = state.legal_actions(seat)
            assert legal, f"{game.id}: seat {seat} must act but has no legal action"
            assert len(legal) == len(set(legal))
            for action in legal:
                if game.simultaneous:
                    move: Action | Mapping[Seat, Action] = {
                        s: (action if s == seat else rng.choice(state.legal_actions(s))) for s in seats
                    }
                else:
                    move = action
                after = state.apply(move)
                assert after.step == state.step + 1
                assert dump(state) == snapshot, f"{game.id}: apply({action!r}) changed the old state"


def test_terminal_states_have_no_moves(game: Game) -> None:
    for seed in SEEDS:
        final = playout(game, seed)[-1]
        assert final.to_act == ()
        assert final.is_over
        assert final.legal_actions() == []
        for seat in range(game.num_seats):
            assert final.legal_actions(seat) == []
        assert len(final.scores) == game.num_seats
        if final.winner is not None:
            assert 0 <= final.winner < game.num_seats


def test_parse_action_accepts_canonical_actions(game: Game) -> None:
    state = game.initial_state(seed=1)
    for seat in state.to_act:
        for action in state.legal_actions(seat):
            assert game.parse_action(action, state, seat) == action


def test_state_from_json_rejects_garbage(game: Game) -> None:
    for bad in ({}, {"bogus": 1}):
        with pytest.raises(StateFormatError):
            game.state_from_json(bad)


def test_rules_and_seats(game: Game) -> None:
    assert game.rules_text().strip()
    assert game.num_seats >= 1
    assert game.title
