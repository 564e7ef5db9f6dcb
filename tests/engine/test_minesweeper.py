"""Minesweeper: the options and levels, reveals and the flood fill, flags, the end and the points, the
hidden layout, JSON, the solver, the answer extractor, the simulated model and the LVLM tasks."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

import engine
from engine.agent.parse import parse_answer
from engine.core import GameError, IllegalActionError, InvalidActionError, StateFormatError
from engine.games.minesweeper import (
    MINE,
    UNREVEALED,
    Minesweeper,
    MinesweeperState,
    lvlm,
    parse_cell,
    state_of,
)
from engine.games.minesweeper.answers import extract_move, find_move, split_answer
from engine.games.minesweeper.bots import analyse
from engine.llm.base import Message, Request
from engine.llm.sim import SimClient
from engine.llm.simstyle import SimContext
from engine.options import OptionError
from engine.players import Observation


def cells(state: MinesweeperState, *names: str) -> list[int]:
    return [state.shown[parse_cell(n, state.rows, state.cols) or 0] for n in names]


def play_solver(game: Minesweeper, state: MinesweeperState, seed: int = 0) -> MinesweeperState:
    bot = game.make_bot("solver", seed)
    while not state.is_over:
        view = state.observe(0)
        decision = asyncio.run(bot.act(Observation(game, view, 0, tuple(view.legal_actions(0)), ())))
        state = state.apply(decision.action)
    return state


# -- options ----------------------------------------------------------------------------------------


def test_the_levels_and_sizes_come_from_the_options() -> None:
    assert (Minesweeper().rows, Minesweeper().cols, Minesweeper().mine_count) == (8, 8, 10)
    middle = Minesweeper(level="middle")
    assert (middle.rows, middle.cols, middle.mine_count) == (12, 12, 30)
    hard = Minesweeper(level="hard").initial_state(seed=1)
    assert (hard.rows, hard.cols, len(hard.mines or ())) == (16, 16, 40)
    custom = Minesweeper(rows=5, cols=9, mines=7).initial_state(seed=2)
    assert (custom.rows, custom.cols, custom.mine_count, len(custom.mines or ())) == (5, 9, 7, 7)
    with pytest.raises(OptionError, match="mines"):
        Minesweeper(level="hard", rows=4, cols=4)
    with pytest.raises(OptionError, match="mines"):
        Minesweeper(rows=3, cols=3, mines=9)


def test_the_seed_places_the_mines_before_the_first_move() -> None:
    game = Minesweeper()
    a, b = game.initial_state(seed=5), game.initial_state(seed=5)
    assert a == b and a.mines is not None and len(a.mines) == 10
    assert a.mines != game.initial_state(seed=6).mines
    # Without first-click safety some seeds put a mine under the first click (the paper's rule).
    assert any(0 in game.initial_state(seed=s).mines for s in range(40))  # type: ignore[operator]


def test_safe_first_draws_the_layout_at_the_first_reveal_away_from_it() -> None:
    game = Minesweeper(safe_first=True)
    for seed in range(30):
        start = game.initial_state(seed=seed)
        assert start.mines is None and start.seed == seed
        after = start.apply("D4")
        assert not after.lost and after.mines is not None and len(after.mines) == 10
        assert cells(after, "D4") == [0] and after.revealed_safe() > 1  # the first click opens an area
        assert after.seed is None and start.apply("D4") == after


# -- reveals, the flood fill, the end ----------------------------------------------------------------


def test_a_corner_zero_opens_its_region_and_the_cascade_stops_at_numbers() -> None:
    # Mines down column 3 wall off columns 1-2: A1 is a 0 and opens the strip up to the numbers.
    state = state_of(4, 5, ["A3", "B3", "C3", "D3"], "A1")
    assert cells(state, "A1", "B1", "C1", "D1") == [0, 0, 0, 0]
    assert cells(state, "A2", "B2", "C2", "D2") == [2, 3, 3, 2]
    assert cells(state, "A4", "A5", "D5") == [UNREVEALED] * 3  # beyond the numbers nothing opens
    assert state.revealed_safe() == 8 and state.moves == 1 and not state.is_over
    # One move revealed eight cells: 10 per move and 2 per revealed cell.
    assert state.scores == (10 + 2 * 8,)


def test_a_number_reveals_only_itself() -> None:
    state = state_of(3, 3, ["A1"], "B2")
    assert cells(state, "B2") == [1] and state.revealed_safe() == 1


def test_revealing_a_mine_loses_and_counts_as_a_move() -> None:
    state = state_of(8, 8, ["H8", "A2"], ["A8"]).apply("H8")
    assert state.lost and state.is_over and state.winner is None
    assert state.exploded == 63 and state.shown[63] == MINE
    assert state.moves == 2 and state.metrics()["lvlm_points"] == 10 * 2 + 2 * state.revealed_safe()
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="lost"):
        state.apply("A1")
    assert "Lost: a mine was revealed at H8" in state.text()


def test_a_mine_in_the_corner_counts_for_its_three_neighbours() -> None:
    state = state_of(3, 3, ["A1"], ["A2", "B1", "B2", "C3"])
    assert cells(state, "A2", "B1", "B2") == [1, 1, 1]
    assert cells(state, "C3", "C1", "A3") == [0, 0, 0]  # C3's 0 opened the rest


def test_revealing_the_last_safe_cell_wins_with_the_bonus() -> None:
    state = state_of(2, 2, ["A1"], ["A2", "B1"])
    assert not state.is_over
    won = state.apply("B2")
    assert won.won and won.winner == 0 and won.is_over and won.unrevealed() == [0]
    assert won.scores == (10 * 3 + 2 * 3 + 1000,)
    assert won.metrics()["won"] == 1.0 and "Won" in won.text()


def test_each_cell_is_revealed_once_and_nonsense_is_refused() -> None:
    state = state_of(4, 4, ["A2", "D4"], "A1")
    with pytest.raises(IllegalActionError, match="already revealed"):
        state.apply("A1")
    with pytest.raises(InvalidActionError):
        state.apply("E1")  # off a 4x4 board
    with pytest.raises(InvalidActionError):
        state.apply("reveal everything")
    with pytest.raises(IllegalActionError):
        state.apply({1: "D4"})


def test_flags_toggle_are_not_moves_and_block_reveals_and_the_flood() -> None:
    state = state_of(3, 4, ["A4"]).apply("flag B2")
    assert state.flags == {5} and state.moves == 0 and state.step == 1 and state.scores == (0.0,)
    assert "B2" not in state.legal_actions() and "flag B2" in state.legal_actions()
    with pytest.raises(IllegalActionError, match="flagged"):
        state.apply("B2")
    opened = state.apply("C1")
    assert cells(opened, "B2") == [UNREVEALED] and opened.revealed_safe() > 1  # the flood went around it
    assert opened.apply("flag B2").flags == frozenset()
    off = state_of(3, 4, ["A4"], flagging=False)
    assert not any(a.startswith("flag") for a in off.legal_actions())
    with pytest.raises(IllegalActionError, match="flags are off"):
        off.apply("flag B2")
    assert state.annotate("flag C1") and not state.annotate("C1")


def test_the_panel_composes_flag_actions() -> None:
    state = state_of(3, 3, ["C2", "C3"], "A1")
    panel = state.panel(0)
    assert panel is not None and panel.submit == "Flag"
    assert panel.action_for({"row": 2, "col": 3}) == "flag C3"
    assert panel.summary is not None and "Flags C3" in panel.summary({"row": 2, "col": 3})
    assert "Not allowed" in panel.summary({"row": 0, "col": 1})
    assert state_of(3, 3, ["C2", "C3"], "A1", flagging=False).panel(0) is None


def test_moves_are_read_forgivingly() -> None:
    game = Minesweeper()
    state = game.initial_state(seed=1)
    assert game.parse_action("3b", state) == "B3"
    assert game.parse_action(" b 3 ", state) == "B3"
    assert game.parse_action("Flag c4", state) == "flag C4"
    with pytest.raises(InvalidActionError):
        game.parse_action("Z9", state)


# -- hidden information and JSON --------------------------------------------------------------------


def test_the_view_hides_the_layout_until_the_game_ends() -> None:
    game = Minesweeper()
    state = game.initial_state(seed=4).apply("flag A1")
    view = state.observe(0)
    assert view.hidden and view.mines is None and view.seed is None
    assert view.legal_actions(0) == state.legal_actions(0) and view.scores == state.scores
    data = json.dumps(view.to_json())
    assert all(state.name(m) not in data for m in state.mines or ())  # no mine cell is named
    assert "*" not in view.text(0)
    with pytest.raises(GameError):
        view.apply("H8")
    safe_first = Minesweeper(safe_first=True).initial_state(seed=9).observe(0)
    assert safe_first.seed is None  # nor the seed the layout would be drawn from
    mine = next(iter(state.mines or ()))
    over = state.apply(state.name(mine))
    assert over.observe(0) is over and "*" in over.text(0)  # nothing is secret any more
    assert not game.perfect_information and game.initial_state(seed=0).secrets(0) == frozenset()


def test_json_round_trips_states_and_views_and_refuses_bad_data() -> None:
    game = Minesweeper(safe_first=True)
    state = game.initial_state(seed=3)
    for s in (state, state.apply("A1"), state.apply("A1").observe(0), state.apply("flag B2")):
        assert game.state_from_json(json.loads(json.dumps(s.to_json()))) == s
    data = state.apply("A1").to_json()
    bad_value = {**data, "shown": [[12] * 8] * 8}
    wrong_count = {**data, "mines": data["mines"][:-1]}
    contradicted = json.loads(json.dumps(data))
    contradicted["shown"][0][0] = 5
    for bad in (bad_value, wrong_count, contradicted, {**data, "rows": 0}, {"game": "sudoku"}):
        with pytest.raises(StateFormatError):
            game.state_from_json(bad)


def test_conformance_and_random_play_in_every_variant() -> None:
    assert engine.check_game("minesweeper").episodes == 3
    for options in ({"safe_first": True}, {"level": "hard"}, {"rows": 3, "cols": 12, "mines": 5}):
        game = Minesweeper(**options)
        rng = random.Random(1)
        for seed in range(5):
            state = game.initial_state(seed=seed)
            while not state.is_over:
                assert game.state_from_json(json.loads(json.dumps(state.to_json()))) == state
                state = game.play_random(state, rng)
            assert state.won or state.lost


# -- the solver -------------------------------------------------------------------------------------


def test_the_solver_deduces_sure_cells_on_hand_cases() -> None:
    # A classic 1-2-1 under a grey row: the 1s' subsets clear A3, then the 2 needs A2 and A4, and the
    # end 1s are met, which clears A1 and A5.
    state = state_of(2, 5, ["A2", "A4"], ["B1", "B2", "B3", "B4", "B5"])
    assert lvlm.matrix(state)[1] == [1, 1, 2, 1, 1]
    found = analyse(state.observe(0))
    assert {state.name(j) for j in found.mines} == {"A2", "A4"}
    assert {state.name(j) for j in found.safe} == {"A1", "A3", "A5"}
    assert all(found.risk[j] == 0.0 for j in found.safe) and found.exact
    assert any("already has" in why or "other cells are clear" in why for why in found.safe.values())
    # The solver bot plays a sure cell and says why.
    game = Minesweeper()
    view = state.observe(0)
    decision = asyncio.run(
        game.make_bot("solver", 0).act(Observation(game, view, 0, tuple(view.legal_actions()), ()))
    )
    assert decision.action in ("A1", "A3", "A5") and "safe" in decision.rationale


def test_the_solver_counts_exact_chances() -> None:
    # A lone 1 at A1 of a 3x3 board with 2 mines: A2, B1, B2 share exactly one mine, the other five
    # cells share the other one.
    state = MinesweeperState(rows=3, cols=3, mine_count=2, shown=(1,) + (UNREVEALED,) * 8, hidden=True)
    found = analyse(state)
    assert found.exact
    assert found.risk[1] == pytest.approx(1 / 3) and found.risk[3] == pytest.approx(1 / 3)
    assert found.risk[8] == pytest.approx(1 / 5)


def test_the_solver_never_reveals_a_proven_mine_and_wins_most_games() -> None:
    game = Minesweeper()
    wins = 0
    for seed in range(40):
        state = play_solver(game, game.initial_state(seed=seed), seed)
        wins += state.won
        if state.lost:
            before = state.shown[: state.exploded] + (UNREVEALED,) + state.shown[(state.exploded or 0) + 1 :]
            view = MinesweeperState(rows=8, cols=8, mine_count=10, shown=before, hidden=True)
            assert state.exploded not in analyse(view).mines
    assert wins >= 20  # about two in three: the first guesses can hit a mine


# -- answers and the simulated model ----------------------------------------------------------------


def test_the_extractor_reads_the_cell_after_the_last_movement() -> None:
    reply = "Observation: the corner is open.\nStrategy: open C3.\nMovement: C3\nMovement: **3e**"
    found = extract_move(reply, [])
    assert found.extracted == "E3" and found.thought == "open C3"
    assert extract_move("Movement:\n  b 7", []).extracted == "B7"
    assert extract_move("Movement: the middle", []).extracted == "the middle"
    assert extract_move("Movement: flag D4", []).extracted == "flag D4"
    assert extract_move("Movement:", []).error
    fallback = extract_move("I think A1 then H8.", [])
    assert fallback.extracted == "H8" and "no 'Movement:'" in fallback.reason
    assert extract_move("no cell here", []).extracted is None
    assert find_move("row 3 is a 3x3 box") is None
    assert split_answer(reply) == {
        "observation": "the corner is open",
        "strategy": "open C3",
        "movement": "3e",
    }


def ask(client: SimClient, game: Minesweeper, state: MinesweeperState) -> str:
    client.set_context(SimContext(game, state.observe(0), 0))
    messages = (Message("system", "Minesweeper."), Message("user", "Movement: <row><column>"))
    return asyncio.run(client.complete(Request(model="sim", messages=messages))).content


def test_a_perfect_sim_writes_the_three_lines_and_reveals_sure_cells() -> None:
    game = Minesweeper()
    for seed in range(8):
        state = game.initial_state(seed=seed)
        state = state.apply(
            next(a for a in state.legal_actions() if parse_cell(a, 8, 8) not in (state.mines or ()))
        )
        if state.is_over:
            continue
        reply = ask(SimClient("perfect", seed=seed, latency=0), game, state)
        assert [ln.split(":")[0] for ln in reply.splitlines()] == ["Observation", "Strategy", "Movement"]
        parsed = parse_answer(game, state.observe(0), 0, reply)
        assert parsed.ok, reply
        found = analyse(state.observe(0))
        index = parse_cell(parsed.action or "", 8, 8)
        assert index is not None and (index in found.safe or not found.safe)


def test_a_careless_sim_misplays_the_way_models_do() -> None:
    game = Minesweeper()
    kinds = {"ok": 0, "illegal": 0, "unparsable": 0, "risky": 0}
    for seed in range(60):
        state = game.initial_state(seed=seed % 6)
        state = state.apply(
            next(a for a in state.legal_actions() if parse_cell(a, 8, 8) not in (state.mines or ()))
        )
        if state.is_over:
            continue
        reply = ask(SimClient("careless", seed=seed, latency=0), game, state)
        parsed = parse_answer(game, state.observe(0), 0, reply)
        kinds[parsed.kind if parsed.kind in kinds else "unparsable"] += 1
        if parsed.ok:
            found = analyse(state.observe(0))
            index = parse_cell(parsed.action or "", 8, 8)
            kinds["risky"] += bool(found.safe) and index not in found.safe
    assert kinds["illegal"] >= 3 and kinds["unparsable"] >= 2 and kinds["risky"] >= 2 and kinds["ok"] >= 15


# -- LVLM tasks -------------------------------------------------------------------------------------


def test_random_boards_follow_the_reference_and_are_reproducible() -> None:
    a, b = lvlm.random_board(random.Random(3)), lvlm.random_board(random.Random(3))
    assert a == b and a != lvlm.random_board(random.Random(4))
    for seed in range(20):
        board = lvlm.random_board(random.Random(seed))
        assert isinstance(board, MinesweeperState) and board.mines is None  # the image shows no layout
        assert sum(v != UNREVEALED for v in board.shown) == 33 and board.shown.count(MINE) <= 10
        assert Minesweeper().state_from_json(board.to_json()) == board


def test_legal_positions_are_half_open_games_in_progress() -> None:
    assert lvlm.random_legal(random.Random(2)) == lvlm.random_legal(random.Random(2))
    for seed in range(30):
        state, seat = lvlm.random_legal(random.Random(seed))
        assert seat == 0 and not state.is_over and MINE not in state.shown
        assert state.revealed_safe() >= 20
        moves = lvlm.valid_moves(state, seat)
        assert moves and moves == [a for a in state.legal_actions() if not a.startswith("flag")]
        assert all(state.shown[parse_cell(m, 8, 8) or 0] == UNREVEALED for m in moves)


def test_the_matrix_is_the_board_row_by_row() -> None:
    # H8 is safe but walled in by mines, so A1's flood leaves it grey.
    state = state_of(8, 8, ["A3", "G7", "G8", "H7"], "A1")
    matrix = lvlm.matrix(state)
    assert len(matrix) == 8 and all(len(row) == 8 for row in matrix)
    assert matrix[0][:4] == [0, 1, UNREVEALED, 1] and matrix[7][6:] == [UNREVEALED, UNREVEALED]
    assert matrix[6][5] == 2 and not state.is_over
    lost = state.apply("H7")
    assert lvlm.matrix(lost)[7][6] == 9
    assert lvlm.MATRIX_SHAPE == (8, 8) and lvlm.MATRIX_RANGE == (-1, 10)
    assert lvlm.valid_moves(lost, 0) == []


def test_questions_are_answered_right_on_a_hand_case() -> None:
    # Row A: a revealed mine at A1, a 2 at A2, a 0 at A5; B1 revealed 1; the rest grey.
    shown = [UNREVEALED] * 64
    shown[0], shown[1], shown[4], shown[8] = MINE, 2, 0, 1
    state = MinesweeperState(rows=8, cols=8, mine_count=10, shown=tuple(shown), hidden=True)
    for seed in range(30):
        for question, answer, wrong in lvlm.questions(state, random.Random(seed)):
            assert len(wrong) == 3 and answer not in wrong and len(set(wrong)) == 3
            if question.startswith("What is the revealed symbol in row A, column 1"):
                assert answer == "mine"
            elif question.startswith("What is the revealed symbol in row A, column 2"):
                assert answer == "2"
            elif question == "How many revealed mines are there on the board?":
                assert answer == "1" and all(int(w) >= 0 for w in wrong)
            elif question == "How many revealed cells are there on the board?":
                assert answer == "4"
            elif question == "How many revealed cells are there in row A?":
                assert answer == "3"
            elif question == "How many revealed cells are there in column 1?":
                assert answer == "2"
            elif question.startswith("How many revealed mines are adjacent to row B, column 1"):
                assert answer == "1"
            elif question.startswith("How many revealed mines are adjacent to row A, column 5"):
                assert answer == "0"
            elif question.startswith(
                "How many total mines (revealed or not) are adjacent to row A, column 2"
            ):
                assert answer == "2"
            elif question.startswith("Is there a revealed mine at row A, column 1"):
                assert answer == "yes" and set(wrong) == {"no", "maybe", "unknown"}
            elif question.startswith("Is there a revealed mine"):
                assert answer == "no"
    asked = {
        q.split(" row")[0].split("?")[0]
        for s in range(30)
        for q, _, _ in lvlm.questions(state, random.Random(s))
    }
    assert len(asked) >= 7


def test_read_move_normalises_a_models_movement() -> None:
    assert lvlm.read_move("Observation: x\nStrategy: y\nMovement: 3c") == "C3"
    assert lvlm.read_move("Movement: b 7.") == "B7"
    assert lvlm.read_move("Movement: flag D4") == "D4"
    assert lvlm.read_move("I pick E5") == "E5"
    assert lvlm.read_move("Movement: somewhere safe") is None


def test_task_prompts_carry_the_output_keys() -> None:
    assert set(lvlm.PROMPTS) == {"perceive", "qa", "rules"}
    assert "Game State:" in lvlm.PROMPTS["perceive"] and "-1" in lvlm.PROMPTS["perceive"]
    assert "Answer:" in lvlm.PROMPTS["qa"] and "{question}" in lvlm.PROMPTS["qa"]
    assert "Movement:" in lvlm.PROMPTS["rules"] and "no flagging" in lvlm.PROMPTS["rules"]
