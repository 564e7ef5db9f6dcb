"""Tic-tac-toe rules, views, parsing and the winning-moves oracle."""

from __future__ import annotations

import random

import pytest

import engine
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.tictactoe import ACTIONS, LINES, TicTacToe, TicTacToeState, winning_moves


@pytest.fixture
def game() -> TicTacToe:
    g = engine.make("tictactoe")
    assert isinstance(g, TicTacToe)
    return g


def play(game: TicTacToe, *moves: str) -> TicTacToeState:
    state = game.initial_state()
    for move in moves:
        state = state.apply(move)
    return state


def test_x_moves_first_and_players_alternate(game: TicTacToe) -> None:
    state = game.initial_state()
    assert state.to_act == (0,) and state.step == 0 and len(state.legal_actions()) == 9
    state = state.apply("(1,1)")
    assert state.cells[4] == "X" and state.to_act == (1,) and state.last_action == "(1,1)"
    assert state.legal_actions(0) == [] and "(1,1)" not in state.legal_actions(1)
    state = state.apply("(0,0)")
    assert state.cells[0] == "O" and state.to_act == (0,) and state.step == 2
    assert state.scores == (0.0, 0.0) and state.winner is None


@pytest.mark.parametrize(
    ("moves", "line", "winner"),
    [
        (("(0,0)", "(1,0)", "(0,1)", "(1,1)", "(0,2)"), (0, 1, 2), 0),
        (("(0,0)", "(0,1)", "(1,0)", "(1,1)", "(2,2)", "(2,1)"), (1, 4, 7), 1),
        (("(0,0)", "(0,1)", "(1,1)", "(0,2)", "(2,2)"), (0, 4, 8), 0),
        (("(0,0)", "(0,2)", "(1,0)", "(1,1)", "(2,1)", "(2,0)"), (2, 4, 6), 1),
    ],
)
def test_wins(game: TicTacToe, moves: tuple[str, ...], line: tuple[int, int, int], winner: int) -> None:
    state = play(game, *moves)
    assert state.is_over and state.to_act == () and state.legal_actions() == []
    assert state.winner == winner
    assert state.winning_line() == line
    assert state.scores == ((1.0, 0.0) if winner == 0 else (0.0, 1.0))
    assert state.status_text() == f"{'XO'[winner]} wins."
    with pytest.raises(IllegalActionError):
        state.apply(state.legal_actions(0)[0] if state.legal_actions(0) else "(2,2)")


def test_draw(game: TicTacToe) -> None:
    state = play(game, "(0,0)", "(1,1)", "(2,2)", "(0,1)", "(2,1)", "(2,0)", "(0,2)", "(1,2)", "(1,0)")
    assert state.is_over and state.winner is None and state.winning_line() is None
    assert state.scores == (0.5, 0.5)
    assert "Draw." in state.text()


def test_bad_and_illegal_actions(game: TicTacToe) -> None:
    state = play(game, "(1,1)")
    with pytest.raises(IllegalActionError):
        state.apply("(1,1)")
    with pytest.raises(InvalidActionError):
        state.apply("(3,3)")
    with pytest.raises(InvalidActionError):
        state.apply("centre")
    with pytest.raises(IllegalActionError):
        state.apply({0: "(0,0)"})  # X is not to move
    assert state.apply({1: "(0,0)"}).cells[0] == "O"


def test_text_views(game: TicTacToe) -> None:
    state = play(game, "(0,1)", "(1,1)")
    text = state.text(0)
    lines = text.splitlines()
    assert lines[0] == "Current Game Board:"
    assert lines[1] == "(0,0):_ (0,1):X (0,2):_"
    assert lines[2] == "(1,0):_ (1,1):O (1,2):_"
    assert " _ | X | _" in text and "---+---+---" in text
    assert "You are playing X." in text and "X to move." in text
    assert state.grid_text().splitlines()[2] == " _ | O | _"


def test_keymap_and_rules(game: TicTacToe) -> None:
    assert game.keymap["1"] == "(0,0)" and game.keymap["5"] == "(1,1)" and game.keymap["9"] == "(2,2)"
    assert sorted(game.keymap) == [str(i) for i in range(1, 10)]
    assert "(row,col)" in game.rules_text()


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("(1, 1)", "(1,1)"),
        ("1,1", "(1,1)"),
        ("row 1 col 1", "(1,1)"),
        ("Row: 2, Column: 0", "(2,0)"),
        ("Chosen Move: (0,2)", "(0,2)"),
        ("IR1: (0,0), (2,2)\nChosen Move: (2,2)", "(2,2)"),
        ("  ( 2 , 1 )  ", "(2,1)"),
        ("I play (0,0) because (0,0) is a corner", "(0,0)"),
    ],
)
def test_parse_action_is_lenient(game: TicTacToe, text: str, action: str) -> None:
    assert game.parse_action(text, game.initial_state()) == action


def test_parse_action_errors(game: TicTacToe) -> None:
    start = game.initial_state()
    for text in ("nothing", "(0,0) or (2,2)", "(3,1)", ""):
        with pytest.raises(InvalidActionError):
            game.parse_action(text, start)
    state = play(game, "(1,1)")
    with pytest.raises(IllegalActionError, match="taken"):
        game.parse_action("(1, 1)", state)
    with pytest.raises(IllegalActionError):
        game.parse_action("(0,0)", state, seat=0)
    over = play(game, "(0,0)", "(1,0)", "(0,1)", "(1,1)", "(0,2)")
    with pytest.raises(IllegalActionError, match="over"):
        game.parse_action("(2,2)", over)


def test_winning_moves_examples(game: TicTacToe) -> None:
    # X holds (0,0), (0,1); O holds (1,1), (2,0): both threaten (0,2).
    state = play(game, "(0,0)", "(1,1)", "(0,1)", "(2,0)")
    assert winning_moves(state, "X") == ["(0,2)"]
    assert winning_moves(state, "O") == ["(0,2)"]  # the anti-diagonal (0,2)-(1,1)-(2,0)
    assert winning_moves(game.initial_state(), "X") == []
    fork = TicTacToeState(cells=("X", "", "X", "", "O", "", "X", "O", ""))
    assert winning_moves(fork, "X") == ["(0,1)", "(1,0)"]
    with pytest.raises(ValueError):
        winning_moves(fork, "Z")


def test_winning_moves_matches_brute_force(game: TicTacToe) -> None:
    rng = random.Random(11)
    for _ in range(300):
        state = game.initial_state()
        for _ in range(rng.randrange(0, 8)):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_actions()))
        for mark in "XO":
            truth = []
            for i, action in enumerate(ACTIONS):
                if state.cells[i]:
                    continue
                cells = state.cells[:i] + (mark,) + state.cells[i + 1 :]
                if any(i in line and all(cells[j] == mark for j in line) for line in LINES):
                    truth.append(action)
            assert winning_moves(state, mark) == truth


@pytest.mark.parametrize(
    "data",
    [
        {"cells": ["X"] * 9},
        {"cells": ["X", "", ""]},
        {"cells": ["Q"] + [""] * 8},
        {"cells": ["O"] + [""] * 8},
        {"cells": ["X"] + [""] * 8, "last_action": "(2,2)"},
        {"game": "2048", "cells": [""] * 9},
        {"cells": "X........"},
    ],
)
def test_state_from_json_rejects_bad_data(game: TicTacToe, data: dict[str, object]) -> None:
    with pytest.raises(StateFormatError):
        game.state_from_json(data)


def test_with_first_o_seat_0_is_o_and_moves_first() -> None:
    game = engine.make("tictactoe", style="lvlm", first="o")
    assert [s.name for s in game.seats] == ["O", "X"]
    state = game.initial_state()
    assert state.to_act == (0,) and state.status_text() == "O to move."
    state = state.apply("(1,1)")
    assert state.cells[4] == "O" and state.to_act == (1,)
    for move in ("(0,0)", "(0,1)", "(2,2)", "(2,1)"):
        state = state.apply(move)
    # O holds (1,1), (0,1), (2,1): the middle column, so seat 0 wins.
    assert state.winner == 0 and state.metrics()["lvlm_points"] == 10 * 3 + 50
    assert game.state_from_json(state.to_json()) == state and state.to_json()["first"] == "o"
    assert "O moves first" in game.rules_text() and "X moves first" in engine.make("tictactoe").rules_text()
    with pytest.raises(StateFormatError):
        game.state_from_json({**state.to_json(), "cells": ["X", "X", "", "", "", "", "", "", ""]})


def test_the_minimax_bot_plays_x_second_when_o_moves_first() -> None:
    import asyncio

    from engine.players import Observation
    from engine.roster import make_player

    game = engine.make("tictactoe", first="o")
    state = game.initial_state().apply("(0,0)").apply("(1,1)").apply("(0,1)")
    obs = Observation(game=game, state=state, seat=1, legal_actions=tuple(state.legal_actions(1)))
    decision = asyncio.run(make_player("minimax", game, seed=1).act(obs))
    assert decision.action == "(0,2)"  # X blocks O's top row
