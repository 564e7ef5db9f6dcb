"""Connect Four: rules, views, parsing, the winning-moves oracle, questions, the alpha-beta bot and the
simulated model's answers."""

from __future__ import annotations

import asyncio
import random

import pytest

import engine
from engine.agent import prompts
from engine.agent.parse import parse_answer
from engine.core import IllegalActionError, InvalidActionError, StateFormatError
from engine.games.connect4 import ACTIONS, ConnectFour, ConnectFourState, winning_moves
from engine.games.connect4.answers import extract_move
from engine.games.connect4.bots import AlphaBetaBot, action_values
from engine.games.connect4.questions import QUESTIONS, floating_threats
from engine.games.connect4.rules import full_scan
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.players import Observation
from engine.questions import F1, score

GAME = engine.make("connect4")


def drop(*columns: int) -> ConnectFourState:
    """The state after discs are dropped into ``columns`` from the start."""
    state = GAME.initial_state()
    for col in columns:
        cell = state.playable_cell(col)
        assert cell is not None
        state = state.apply(cell)
    assert isinstance(state, ConnectFourState)
    return state


def board(x: list[str], o: list[str], last: str) -> ConnectFourState:
    cells = [""] * 42
    for mark, spots in (("X", x), ("O", o)):
        for spot in spots:
            cells[ACTIONS.index(spot)] = mark
    state = GAME.state_from_json({"cells": cells, "last_action": last})
    assert isinstance(state, ConnectFourState)
    return state


def spec_example() -> ConnectFourState:
    """The spec's worked example: (3,2) completes X's column and O's falling diagonal."""
    return board(["(0,2)", "(1,2)", "(2,2)", "(1,3)", "(0,4)"], ["(2,3)", "(1,4)", "(0,5)", "(0,3)"], "(2,2)")


def test_declaration() -> None:
    assert isinstance(GAME, ConnectFour)
    assert GAME.id == "connect4" and GAME.title == "Connect Four" and "gamebot" in GAME.suites
    assert [s.name for s in GAME.seats] == ["X", "O"]
    assert len(GAME.actions) == 42 and GAME.actions[0] == "(0,0)" and GAME.actions[-1] == "(5,6)"
    assert GAME.default_opponent == "alphabeta" and GAME.default_prompt == "cot"
    assert prompts.variants(GAME) == ["default", "cot", "naive", "none"]
    assert prompts.load_template(GAME).path == "prompts/connect4/cot.md"
    assert engine.check_game("connect4").states > 0


def test_discs_drop_to_the_bottom_and_x_moves_first() -> None:
    state = GAME.initial_state()
    assert state.to_act == (0,) and state.legal_actions() == [f"(0,{c})" for c in range(7)]
    state = state.apply("(0,3)")
    assert state.cells[3] == "X" and state.to_act == (1,) and state.last_action == "(0,3)"
    assert "(1,3)" in state.legal_actions(1) and "(0,3)" not in state.legal_actions(1)
    assert state.legal_actions(0) == []
    state = state.apply("(1,3)")
    assert state.cells[7 + 3] == "O" and state.step == 2
    with pytest.raises(IllegalActionError, match=r"lands at \(2,3\)"):
        state.apply("(4,3)")
    with pytest.raises(IllegalActionError, match="taken"):
        state.apply("(0,3)")
    with pytest.raises(InvalidActionError):
        state.apply("(6,0)")
    with pytest.raises(IllegalActionError):
        state.apply({1: "(0,0)"})  # X is to move
    full = drop(*[0] * 6)
    assert full.playable_cell(0) is None and all(not a.endswith(",0)") for a in full.legal_actions())
    with pytest.raises(IllegalActionError, match="full"):
        full.apply("(5,0)")


@pytest.mark.parametrize(
    ("columns", "winner", "line"),
    [
        ((0, 0, 1, 1, 2, 2, 3), 0, ("(0,0)", "(0,3)")),  # a row
        ((0, 1, 0, 1, 0, 1, 0), 0, ("(0,0)", "(3,0)")),  # a column
        ((0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3), 0, ("(0,0)", "(3,3)")),  # the rising diagonal
        ((6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3), 0, ("(0,6)", "(3,3)")),  # the falling diagonal
        ((6, 0, 0, 1, 1, 2, 2, 3), 1, ("(0,0)", "(0,3)")),  # O wins a row
    ],
)
def test_four_in_a_row_wins(columns: tuple[int, ...], winner: int, line: tuple[str, str]) -> None:
    state = drop(*columns)
    assert state.is_over and state.winner == winner and state.legal_actions() == []
    found = state.winning_line()
    assert found is not None and {ACTIONS[found[0]], ACTIONS[found[-1]]} == set(line)
    assert state.scores == ((1.0, 0.0) if winner == 0 else (0.0, 1.0))
    assert state.status_text() == f"{'XO'[winner]} wins."


def test_a_full_board_without_four_is_a_draw() -> None:
    # Columns filled in pairs so that no four ever lines up: XXOOXXO-style stripes.
    order = [0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 2, 3, 2, 3, 2, 3, 3, 2, 3, 2, 3, 2,
             4, 5, 4, 5, 4, 5, 5, 4, 5, 4, 5, 4, 6, 6, 6, 6, 6, 6]
    state = drop(*order)
    assert state.step == 42 and state.is_over and state.winner is None
    assert state.scores == (0.5, 0.5) and "Draw." in state.text()


def test_distinct_positions_per_ply_match_the_known_counts() -> None:
    # The number of different positions after n plies (OEIS A212693): 7, 49, 238, 1120, 4263, 16422.
    # A position is the board: states reached by different last moves count once.
    level = {GAME.initial_state().cells: GAME.initial_state()}
    counts = []
    for _ in range(6):
        level = {n.cells: n for s in level.values() for n in (s.apply(a) for a in s.legal_actions())}
        counts.append(len(level))
    assert counts == [7, 49, 238, 1120, 4263, 16422]


def test_perft_leaf_counts() -> None:
    def perft(state: ConnectFourState, depth: int) -> int:
        if depth == 0:
            return 1
        return sum(perft(state.apply(a), depth - 1) for a in state.legal_actions())

    assert [perft(GAME.initial_state(), d) for d in range(1, 5)] == [7, 49, 343, 2401]


def test_text_view_lists_the_top_row_first_and_the_valid_moves() -> None:
    state = drop(3, 3)
    lines = state.text(0).splitlines()
    assert lines[1].startswith("(5,0):_ (5,1):_")
    assert lines[6] == "(0,0):_ (0,1):_ (0,2):_ (0,3):X (0,4):_ (0,5):_ (0,6):_"
    assert lines[5].split()[3] == "(1,3):O"
    valid = "Current valid moves for player X: (0,0), (0,1), (0,2), (2,3), (0,4), (0,5), (0,6)"
    assert valid in state.text(0)
    assert "You are playing X." in state.text(0) and "X to move." in state.text(0)
    assert "Current valid moves" not in drop(0, 0, 1, 1, 2, 2, 3).text(0)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("(2, 3)", "(2,3)"),
        ("2,3", "(2,3)"),
        ("Chosen Move: (2,3)", "(2,3)"),
        ("IR1: (0,0), (0,1)\nChosen Move: (2,3)", "(2,3)"),
        ("column 3", "(2,3)"),
        ("Chosen Move: col 0", "(0,0)"),
    ],
)
def test_parse_action(text: str, action: str) -> None:
    assert GAME.parse_action(text, drop(3, 3)) == action


def test_parse_action_errors() -> None:
    state = drop(3, 3)
    for text in ("nothing", "(0,0) or (0,1)", "(6,1)", "column 9", ""):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(text, state)
    with pytest.raises(IllegalActionError, match="lands at"):
        GAME.parse_action("(4,3)", state)
    with pytest.raises(IllegalActionError, match="full"):
        GAME.parse_action("column 0", drop(*[0] * 6))
    with pytest.raises(IllegalActionError, match="over"):
        GAME.parse_action("(0,6)", drop(0, 0, 1, 1, 2, 2, 3))


@pytest.mark.parametrize(
    "data",
    [
        {"cells": ["X"] * 42},
        {"cells": [""] * 41},
        {"cells": [""] * 7 + ["X"] + [""] * 34, "last_action": "(1,0)"},  # a floating disc
        {"cells": ["O"] + [""] * 41, "last_action": "(0,0)"},  # O cannot move first
        {"cells": ["X"] + [""] * 41, "last_action": "(0,1)"},  # not the last disc played
        {"cells": ["X"] + [""] * 41},  # discs but no last move
        {"game": "tictactoe", "cells": [""] * 42},
    ],
)
def test_state_from_json_rejects_bad_data(data: dict[str, object]) -> None:
    with pytest.raises(StateFormatError):
        GAME.state_from_json(data)


def test_state_from_json_rejects_a_four_the_last_move_did_not_make() -> None:
    cells = ["X", "X", "X", "X", "O", "O", "O"] + ["O"] + [""] * 34
    with pytest.raises(StateFormatError, match="four"):
        GAME.state_from_json({"cells": cells, "last_action": "(1,0)"})


def test_json_round_trip() -> None:
    state = drop(3, 3, 2, 4, 1)
    assert GAME.state_from_json(state.to_json()) == state
    assert GAME.state_from_json(state.to_json()).winning_line() == state.winning_line()


# -- the oracle and the questions ------------------------------------------------------------------


def test_the_spec_example_wins_for_both_sides() -> None:
    state = spec_example()
    assert state.to_act == (1,)
    assert winning_moves(state, "X") == ["(3,2)"] and winning_moves(state, "O") == ["(3,2)"]
    mine, theirs = QUESTIONS
    assert mine.expected(state, 0) == ["(3,2)"] and theirs.expected(state, 1) == ["(3,2)"]
    # X's falling diagonal (2,2)-(1,3)-(0,4) would finish at (3,1), which is not playable yet.
    assert "(3,1)" in floating_threats(state.cells, "X") and "(3,1)" not in winning_moves(state, "X")


def test_winning_moves_match_brute_force() -> None:
    rng = random.Random(4)
    for _ in range(300):
        state = GAME.initial_state()
        for _ in range(rng.randrange(0, 30)):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if state.is_over:
            continue
        for mark in "XO":
            truth = []
            for action in state.legal_actions():
                i = ACTIONS.index(action)
                cells = state.cells[:i] + (mark,) + state.cells[i + 1 :]
                if any(i in line for _m, line in full_scan(cells)):
                    truth.append(action)
            assert winning_moves(state, mark) == truth


def test_questions_are_f1_sets_and_score_the_papers_labels() -> None:
    mine, theirs = QUESTIONS
    assert (mine.key, theirs.key) == (1, 2) and mine.kind == theirs.kind == "set"
    assert mine.scored_by == theirs.scored_by == F1
    state = spec_example()
    truth = mine.expected(state, 1)
    assert score(mine, "(3,2)", truth)[2]["label"] == "TP"
    assert score(mine, "None", truth)[2]["label"] == "FN"
    assert score(mine, "(3,2), (3,1)", truth)[2]["label"] == "MM"
    assert score(mine, "somewhere", truth)[2]["label"] == "format_error"
    assert score(mine, "(0,0)", mine.expected(GAME.initial_state(), 0))[2]["label"] == "FP"


def test_wrong_answers_are_plausible() -> None:
    rng = random.Random(2)
    state = spec_example()
    mine = QUESTIONS[0]
    assert mine.wrong is not None
    seen = set()
    for _ in range(40):
        answer = mine.wrong(["(3,2)"], state, 0, rng)
        assert answer != ["(3,2)"]
        seen.add(tuple(answer))
    assert () in seen  # the real winning cell missed
    assert any("(3,1)" in a for a in seen)  # the floating cell of X's diagonal seen as playable


# -- answers -------------------------------------------------------------------------------------------


def test_extract_move_reads_the_chosen_cell_or_a_bare_column() -> None:
    legal = drop(3, 3).legal_actions()
    tagged = "[Intermediate Thinking Results 1: (0,1)]\nChosen Move: (2,3)"
    assert extract_move(tagged, legal).extracted == "(2,3)"
    bare = extract_move("Conclusion: centre.\nChosen Move: column 3", legal)
    assert bare.extracted == "(2,3)" and "column 3" in bare.reason and bare.thought == "centre"
    fallback = extract_move("[Intermediate Thinking Results 1: (0,1)] I like (0,5).", legal)
    assert fallback.extracted == "(0,5)" and "no 'Chosen Move:'" in fallback.reason
    assert extract_move("Chosen Move:", legal).extracted is None
    assert extract_move("I will play in column 6", legal).extracted == "(0,6)"


def test_a_bare_column_parses_to_its_playable_cell_and_says_so() -> None:
    state = drop(3, 3)
    result = parse_answer(GAME, state, 0, "Thinking...\nChosen Move: Column 3")
    assert result.ok and result.action == "(2,3)" and "column 3" in result.reason
    full = drop(*[0] * 6)
    result = parse_answer(GAME, full, 0, "Chosen Move: column 0")
    assert not result.ok and result.kind == "illegal" and "full" in result.error
    floating = parse_answer(GAME, state, 0, "Chosen Move: (4,3)")
    assert floating.kind == "illegal" and "lands at (2,3)" in floating.error


# -- the bot -----------------------------------------------------------------------------------------


def decide(state: ConnectFourState, seed: int = 0) -> str:
    bot = AlphaBetaBot(GAME, seed)
    seat = state.to_act[0]
    decision = asyncio.run(bot.act(Observation(GAME, state, seat, tuple(state.legal_actions(seat)))))
    assert decision.action is not None
    return decision.action


def test_the_bot_wins_blocks_and_never_plays_under_a_threat() -> None:
    assert decide(drop(0, 6, 1, 6, 2)) == "(0,3)"  # O must block X's row
    win = drop(0, 6, 1, 6, 2, 5)
    assert decide(win) == "(0,3)"  # X wins now
    values = action_values(win)
    assert values["(0,3)"] == max(values.values()) >= 999
    # O's row 1 (1,1)-(1,3) waits for (1,0) and (1,4): a disc at (0,0) or (0,4) would hand it over.
    state = board(["(0,1)", "(0,3)", "(0,6)", "(1,6)"], ["(0,2)", "(1,1)", "(1,2)", "(1,3)"], "(1,3)")
    assert state.to_act == (0,) and winning_moves(state, "O") == []
    assert set(floating_threats(state.cells, "O")) >= {"(1,0)", "(1,4)"}
    values = action_values(state)
    assert values["(0,0)"] <= -900 and values["(0,4)"] <= -900
    assert decide(state) not in ("(0,0)", "(0,4)")


def test_the_bot_beats_random_play() -> None:
    # Its move time is measured by benchmarks/bench_gamebot.py.
    for seed in range(4):
        rng = random.Random(seed)
        state = GAME.initial_state()
        bot_seat = seed % 2
        while not state.is_over:
            if state.to_act[0] == bot_seat:
                action = decide(state, seed)
            else:
                action = rng.choice(state.legal_actions())
            state = state.apply(action)
        assert state.winner == bot_seat


# -- the simulated model -----------------------------------------------------------------------------


def ask(client: SimClient, state: ConnectFourState, prompt: str) -> str:
    client.set_context(SimContext(GAME, state, state.to_act[0]))
    messages = (Message("system", "Play."), Message("user", prompt))
    return asyncio.run(client.complete(Request(model="sim", messages=messages))).content


def test_the_simulated_model_answers_in_the_cot_format_and_parses() -> None:
    cot = "[Intermediate Thinking Results 1: ...] [Intermediate Thinking Results 2: ...]"
    rng = random.Random(3)
    ok = tagged = asked = 0
    for i in range(40):
        state = GAME.initial_state()
        for _ in range(rng.randrange(0, 20)):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if state.is_over:
            continue
        asked += 1
        answer = ask(SimClient("careless", seed=i, latency=0, format_error_rate=0.0), state, cot)
        result = parse_answer(GAME, state, state.to_act[0], answer)
        assert result.action is not None or result.kind == "illegal", answer
        ok += result.ok
        if set(result.tags) == {1, 2}:
            tagged += 1
            assert QUESTIONS[0].read(result.tags[1]) is not None
        assert answer.splitlines()[-1].startswith("Chosen Move: (")
    assert tagged == asked and ok > asked * 0.6
    naive = ask(SimClient("careless", seed=1, latency=0), GAME.initial_state(), "Let's think step by step.")
    assert "Intermediate Thinking Results" not in naive and "Chosen Move:" in naive


def test_the_simulated_model_blocks_what_it_sees() -> None:
    state = drop(0, 0, 1, 1, 2)  # X threatens (0,3)
    answer = ask(SimClient("perfect", seed=0, latency=0, wrong_ir_rate=0.0, illegal_rate=0.0,
                           format_error_rate=0.0), state,
                 "[Intermediate Thinking Results 1: ...] [Intermediate Thinking Results 2: ...]")
    assert "[Intermediate Thinking Results 2: (0,3)]" in answer
    assert answer.endswith("Chosen Move: (0,3)") and "I must block X at (0,3)" in answer
