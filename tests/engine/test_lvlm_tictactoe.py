"""Tic-tac-toe's LVLM-Playground task definitions (engine.games.tictactoe.lvlm): the reference's random
boards, rule-following positions, the -1/1/0 matrix, valid moves, move reading and the QA pool."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from engine.games.tictactoe import TicTacToeState, lvlm


def ttt(rows: str) -> TicTacToeState:
    """A board from three rows of "X", "O" and "." (row A first)."""
    flat = rows.replace(" ", "").replace("/", "")
    assert len(flat) == 9
    return TicTacToeState(cells=tuple("" if ch == "." else ch for ch in flat))


def test_constants_and_prompts() -> None:
    assert lvlm.MATRIX_SHAPE == (3, 3) and lvlm.MATRIX_RANGE == (-1, 1)
    assert set(lvlm.PROMPTS) == {"perceive", "qa", "rules"}
    assert "Game State:" in lvlm.PROMPTS["perceive"] and "[[-1, -1, -1]" in lvlm.PROMPTS["perceive"]
    assert "-1 for an empty cell, 1 for X and 0 for O" in lvlm.PROMPTS["perceive"]
    assert "{question}" in lvlm.PROMPTS["qa"] and "Answer: <answer>" in lvlm.PROMPTS["qa"]
    assert "Movement: <position>" in lvlm.PROMPTS["rules"] and "rows are labelled a to c" in (
        lvlm.PROMPTS["rules"].lower()
    )
    assert lvlm.PROMPTS["qa"].format(question="Q?").count("Q?") == 1


def test_matrix_on_a_hand_case() -> None:
    state = ttt("X.O / .X. / O..")
    assert lvlm.matrix(state) == [[1, -1, 0], [-1, 1, -1], [0, -1, -1]]
    assert [lvlm.cell_name(i) for i in (0, 4, 5, 8)] == ["A1", "B2", "B3", "C3"]


def test_random_boards_are_the_references_shuffles() -> None:
    first, again = (lvlm.matrix(lvlm.random_board(random.Random(5))) for _ in range(2))
    assert first == again
    rng = random.Random(0)
    seen = set()
    for _ in range(200):
        grid = lvlm.matrix(lvlm.random_board(rng))
        flat = [v for row in grid for v in row]
        assert sorted(flat) == [-1, -1, -1, 0, 0, 0, 1, 1, 1]
        seen.add(tuple(flat))
    assert len(seen) > 100


def test_rule_following_boards_hold_three_empty_cells_as_the_paper_s_random_row_implies() -> None:
    a, b = lvlm.random_legal(random.Random(3)), lvlm.random_legal(random.Random(3))
    assert a[0] == b[0] and a[1] == b[1]
    rng = random.Random(1)
    layouts = set()
    for _ in range(300):
        state, seat = lvlm.random_legal(rng)
        assert isinstance(state, TicTacToeState)
        assert state.cells.count("X") == state.cells.count("O") == state.cells.count("") == 3
        assert not state.is_over and not lvlm.winners(state) and seat == 0 and seat in state.to_act
        moves = lvlm.valid_moves(state, seat)
        assert moves == [lvlm.cell_name(i) for i in range(9) if not state.cells[i]] and len(moves) == 3
        layouts.add(state.cells)
    assert len(layouts) > 100
    # A random cell is valid on a third of them: the paper's random row is 0.342 over 2,000 items.
    hits = sum(len(lvlm.valid_moves(*lvlm.random_legal(rng))) for _ in range(600)) / (9 * 600)
    assert hits == pytest.approx(1 / 3)


def test_the_reference_code_s_rule_following_draw_stays_available() -> None:
    rng = random.Random(1)
    movers = set()
    for _ in range(300):
        state, seat = lvlm.reference_legal(rng)
        assert isinstance(state, TicTacToeState)
        x, o = state.cells.count("X"), state.cells.count("O")
        assert 1 <= x <= 5 and o in (x, x - 1) and x + o < 9
        assert not state.is_over and not lvlm.winners(state)
        assert seat == (0 if x == o else 1) and seat in state.to_act
        movers.add(seat)
    assert movers == {0, 1}


def test_valid_moves_are_the_empty_cells_of_the_seat_to_move() -> None:
    state = ttt("X.O / .X. / O..")  # two X, two O: X to move
    assert lvlm.valid_moves(state, 0) == ["A2", "B1", "B3", "C2", "C3"]
    assert lvlm.valid_moves(state, 1) == []
    assert lvlm.valid_moves(ttt("XXX / OO. / ..."), 1) == []  # the game is over


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("Movement: B2", "B2"),
        ("Movement: 2b", "B2"),
        ("Observation: A1 is X\nStrategy: take the centre\nMovement: **c3**", "C3"),
        ("Movement: A1\nWait.\nMovement: 3A", "A3"),
        ("I will play b 1.", "B1"),
        ("Movement: the centre", None),
        ("Movement: D4", None),
        ("no move here", None),
    ],
)
def test_read_move(text: str, move: str | None) -> None:
    assert lvlm.read_move(text) == move


def test_questions_are_answered_right_on_a_hand_case() -> None:
    state = ttt("XXX / O.O / .O.")  # X: 3 (row A); O: 3; empty: 3; X has won
    expected = {
        "What is the symbol in row A, column 1?": "X",
        "What is the symbol in row B, column 2?": "empty",
        "What is the symbol in row C, column 2?": "O",
        "How many 'X's are present on the board?": "3",
        "How many 'O's are present on the board?": "3",
        "How many empty cells are there?": "3",
        "How many 'X's are there in row A?": "3",
        "How many 'O's are there in row B?": "2",
        "How many 'empty's are there in column 1?": "1",
        "How many 'O's are there in column 2?": "1",
        "How many red marks are present on the board?": "3",
        "How many blue marks are present on the board?": "3",
        "How many red marks are there in column 3?": "1",
        "How many blue marks are there in row B?": "2",
        "How many blue marks are there in row A?": "0",
        "Did X or O win the game?": "X",
    }
    checked: set[str] = set()
    for seed in range(80):
        asked = lvlm.questions(state, random.Random(seed))
        assert len(asked) == 7
        for question, answer, wrong in asked:
            assert answer not in wrong and len(set(wrong)) == len(wrong) >= 2
            if question.startswith("How many"):
                assert len(wrong) == 3
                assert all(0 <= int(w) <= 9 and abs(int(w) - int(answer)) <= 3 for w in wrong)
                if "in row" in question or "in column" in question:
                    assert all(int(w) <= 3 for w in wrong)
            if question == "Did X or O win the game?":
                assert sorted(wrong) == sorted(["O", lvlm.NO_WINNER])
            if question in expected:
                assert answer == expected[question], question
                checked.add(question)
    assert len(checked) >= 10
    kinds = {re.sub(r"'(X|O|empty)'s|red|blue|row [A-C]|column [1-3]", "", q)
             for seed in range(80) for q, _, _ in lvlm.questions(state, random.Random(seed))}
    assert len(kinds) == 7  # symbol, count, empty, count in a line, colour count, colour in a line, winner


def test_the_winner_question_only_when_exactly_one_side_won() -> None:
    both = ttt("XXX / OOO / ...")  # a random board may show two lines
    nobody = ttt("XO. / .X. / O..")
    for state in (both, nobody):
        for seed in range(30):
            asked = lvlm.questions(state, random.Random(seed))
            assert all(q != "Did X or O win the game?" for q, _, _ in asked)
    assert lvlm.winners(both) == {"X", "O"} and lvlm.winners(nobody) == set()
    o_won = ttt("O.X / OX. / O.X")
    answers = {q: a for q, a, _ in lvlm.questions(o_won, random.Random(0))}
    assert answers["Did X or O win the game?"] == "O"


def test_the_matrix_matches_the_drawn_board(qapp: object) -> None:
    """Spot check: the renderer draws an X where the matrix says 1 and an O where it says 0, in the
    seat colours of PlayTrace's tic-tac-toe renderer."""
    import renderers
    from renderers.tictactoe import LVLM_COLORS
    from tests.renderers.render_helpers import pixels

    r = renderers.get("tictactoe")
    x_ink, o_ink = (np.array([int(h[i : i + 2], 16) for i in (1, 3, 5)]) for h in LVLM_COLORS)
    rng = random.Random(11)
    for _ in range(3):
        state = lvlm.random_board(rng)
        image = pixels(r.render(state, 300, 300))[:, :, :3].astype(int)
        for row, values in enumerate(lvlm.matrix(state)):
            for col, value in enumerate(values):
                rect = r.cell_rect(state, 300, 300, f"({row},{col})")
                assert rect is not None
                top, left = int(rect.top()) + 4, int(rect.left()) + 4
                patch = image[top : int(rect.bottom()) - 4, left : int(rect.right()) - 4]
                near_x = (np.abs(patch - x_ink).sum(axis=2) < 60).sum()
                near_o = (np.abs(patch - o_ink).sum(axis=2) < 60).sum()
                drawn = 1 if near_x > 50 else 0 if near_o > 50 else -1
                assert drawn == value, (row, col, near_x, near_o)


def test_end_to_end_play_in_the_papers_style() -> None:
    """--option style=lvlm --prompt-variant lvlm: A1 names, labelled answers, points, three strikes."""
    import asyncio

    import engine
    from engine.events import DECISION
    from engine.games.tictactoe.answers import extract_move
    from engine.match import Match
    from engine.roster import make_player

    game = engine.make("tictactoe", style="lvlm")
    state = game.initial_state()
    assert state.lvlm_style and "B2:_" in state.text(0) and game.state_from_json(state.to_json()) == state
    assert extract_move("Observation: empty\nStrategy: centre\nMovement: b2", []).extracted == "(1,1)"
    assert extract_move("Movement: 3C", []).extracted == "(2,2)"
    assert extract_move("Movement:", []).error
    sim = make_player("sim:perfect", game, seed=1, latency=0, prompt_variant="lvlm", strikes=3)
    match = Match(game, [sim, make_player("minimax", game, seed=2)], seed=1)
    answers = []
    match.subscribe(lambda e: answers.append(e.data["text"]) if e.type == "answer" else None)
    events = []
    match.subscribe(events.append)
    result = asyncio.run(match.run())
    assert answers and all(a.splitlines()[-1].startswith("Movement: ") for a in answers)
    assert result.winner in (1, None)  # minimax never loses
    x_moves = sum(1 for e in events if e.type == DECISION and e.seat == 0)
    points = result.final_state.metrics()["lvlm_points"]
    assert points == 10 * x_moves + (20 if result.winner is None else 0)
