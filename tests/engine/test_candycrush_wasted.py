"""Candy Crush's ``wasted_swaps`` option: every adjacent swap is a move, and one that makes no line
leaves the board as it was but costs a move, as LMGame-Bench's reference environment plays it; random
play then scores near the paper's random row, while the default game keeps refusing such swaps."""

from __future__ import annotations

import dataclasses
import random
import statistics

import gymnasium
import numpy as np
import pytest

import engine
import engine.gym  # noqa: F401  (registers the environments)
from engine.core import IllegalActionError
from engine.games.candycrush import ACTIONS, CandyCrush, CandyState
from engine.games.candycrush import board as B
from engine.games.candycrush.sim import near_misses
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import StepRecord

WASTED = engine.make("candycrush", wasted_swaps=True)
DEFAULT = engine.make("candycrush")
#: A swap on a fresh seed-5 board that makes no line.
NO_LINE = next(a for a in ACTIONS if a not in DEFAULT.initial_state(seed=5).legal_actions())


def random_mean(game: engine.Game, runs: int = 30) -> float:
    """The mean raw score of ``runs`` random sessions (seeds 0..runs-1), as ``playtrace baseline`` plays."""
    scores = []
    for seed in range(runs):
        rng = random.Random(seed)
        state = game.initial_state(seed=seed)
        while not state.is_over:
            state = game.play_random(state, rng)
        scores.append(state.metrics()["candies_cleared"])
    return statistics.mean(scores)


def test_the_option_is_declared_off_by_default_and_documented() -> None:
    option = next(o for o in CandyCrush.options_schema if o.name == "wasted_swaps")
    assert option.type is bool and option.default is False
    assert "costs a move" in option.help and "reference environment" in option.help
    assert DEFAULT.initial_state(seed=1).wasted_swaps is False
    assert WASTED.initial_state(seed=1).wasted_swaps is True
    assert "a swap that makes no line is not\nallowed" in DEFAULT.rules_text()
    assert "still uses one of your moves" in WASTED.rules_text()
    assert "costs a move" in WASTED.controls and "only swaps that line up" in DEFAULT.controls


def test_every_swap_is_legal_and_a_swap_without_a_line_only_uses_a_move() -> None:
    state = WASTED.initial_state(seed=5)
    assert state.legal_actions() == list(ACTIONS)
    assert len(state.path_actions()) == 2 * len(ACTIONS)
    assert "costs a move" in state.annotate(NO_LINE)
    assert WASTED.parse_action(NO_LINE, state) == NO_LINE
    after = state.apply(NO_LINE)
    assert after.board == state.board and after.score == 0 and after.waves == ()
    assert after.moves == 1 and after.moves_left == 49 and after.last == NO_LINE
    assert not WASTED.transition(state, after).changed and WASTED.transition(state, after).rewards == (0.0,)
    assert f"{NO_LINE} made no line: nothing changed, and it used a move" == after.notice()
    assert f"Last move: {NO_LINE} made no line" in after.text()
    assert state.outcomes(NO_LINE) == [(1.0, after)]
    # A swap that lines up three plays exactly as in the default game.
    line = DEFAULT.initial_state(seed=5).legal_actions()[0]
    plain = DEFAULT.initial_state(seed=5).apply(line)
    assert dataclasses.replace(state.apply(line), wasted_swaps=False) == plain
    # Two candies of one colour swapped: also a wasted move.
    same = next(n for (a, b), n in zip(B.SWAPS, ACTIONS, strict=True) if state.cell(*a) == state.cell(*b))
    assert "swaps two" in state.annotate(same) and state.apply(same).board == state.board


def test_the_default_game_still_refuses_a_swap_without_a_line() -> None:
    state = DEFAULT.initial_state(seed=5)
    assert NO_LINE not in state.legal_actions() and len(state.legal_actions()) < len(ACTIONS)
    with pytest.raises(IllegalActionError, match="a swap that makes no line is not a move"):
        state.apply(NO_LINE)
    with pytest.raises(IllegalActionError, match="makes no line"):
        DEFAULT.parse_action(NO_LINE, state)


def no_line(state: CandyState) -> str:
    """The first swap in ``state`` that makes no line."""
    return next(a for a, swap in zip(ACTIONS, B.SWAPS, strict=True) if not B.effective(state.board, swap))


def test_wasted_moves_end_the_session_and_notice_the_last_moves() -> None:
    game = engine.make("candycrush", wasted_swaps=True, moves=3)
    state = game.initial_state(seed=5)
    state = state.apply(no_line(state))
    assert state.notice().endswith("; 2 move(s) left")
    while not state.is_over:
        state = state.apply(no_line(state))
    assert state.moves == 3 and state.score == 0
    assert state.legal_actions() == [] and state.path_actions() == {}
    assert state.board == game.initial_state(seed=5).board
    assert "Game over" in state.notice()
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(ACTIONS[0])


def test_json_keeps_the_option_and_reads_states_saved_without_it() -> None:
    state = WASTED.initial_state(seed=5).apply(NO_LINE)
    data = state.to_json()
    assert data["wasted_swaps"] is True and data["waves"] == []
    assert WASTED.state_from_json(data) == state
    older = DEFAULT.initial_state(seed=5).to_json()
    del older["wasted_swaps"]
    assert DEFAULT.state_from_json(older) == DEFAULT.initial_state(seed=5)
    with pytest.raises(Exception, match="wasted_swaps must be true or false"):
        WASTED.state_from_json(data | {"wasted_swaps": "yes"})


def test_random_play_lands_in_the_papers_random_row_only_with_wasted_swaps() -> None:
    # LMGame-Bench's random row for Candy Crush is 116.5 +- 51.5 candies (30 runs of 50 moves).
    assert 70 <= random_mean(WASTED) <= 200
    # The default game offers only swaps that line up three, so random play clears far more.
    assert random_mean(DEFAULT) > 400


def test_the_conformance_check_passes_with_wasted_swaps_on(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = tuple(
        dataclasses.replace(o, default=True) if o.name == "wasted_swaps" else o
        for o in CandyCrush.options_schema
    )
    monkeypatch.setattr(CandyCrush, "options_schema", schema)
    assert engine.make("candycrush").initial_state(seed=0).wasted_swaps
    report = engine.check_game("candycrush", episodes=2, max_steps=60)
    assert report.states > 50


def test_the_gymnasium_env_plays_a_swap_without_a_line_as_a_spent_move() -> None:
    env = gymnasium.make("playtrace/candycrush-v0", wasted_swaps=True)
    obs, info = env.reset(seed=5)
    assert len(info["legal"]) == len(ACTIONS)
    after, reward, done, _, step_info = env.step(ACTIONS.index(NO_LINE))
    assert not step_info.get("illegal") and reward == 0 and not done
    assert np.array_equal(after["board"], obs["board"]) and after["moves_left"] == 49
    env.close()


def test_the_simulated_model_still_misreads_and_reflects_on_a_wasted_swap() -> None:
    state = WASTED.initial_state(seed=5)
    assert near_misses(state) == near_misses(DEFAULT.initial_state(seed=5)) != []
    after = state.apply(NO_LINE)
    behaviour = SimClient().behaviour(WASTED)
    history = [StepRecord(0, state, {0: NO_LINE}, (0.0,), after)]
    words = behaviour.reflection(SimContext(WASTED, after, 0, history))
    assert f"{NO_LINE} made no line and used a move for nothing" in words
    assert "49 moves left" in words
