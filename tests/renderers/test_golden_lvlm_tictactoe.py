"""Tic-tac-toe's task boards in LVLM-Playground's style: X red, O blue, rows A-C and columns 1-3."""

from __future__ import annotations

import random

import renderers
from engine.games.tictactoe import lvlm
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def test_a_task_board_matches_its_golden_image() -> None:
    board = lvlm.random_board(random.Random(1))
    case = Case("tictactoe-lvlm-task-board", "tictactoe", lambda: board, (400, 400))
    check_golden(case.render(), case.name)


def test_x_is_red_and_o_is_blue_where_the_questions_say_so() -> None:
    state = lvlm.random_board(random.Random(1))
    image = pixels(renderers.get("tictactoe").render(state, 300, 300)).astype(int)
    rgb = image[..., :3]
    red = (rgb[..., 0] > 180) & (rgb[..., 1] < 90) & (rgb[..., 2] < 90)
    blue = (rgb[..., 2] > 150) & (rgb[..., 0] < 80)
    assert red.sum() > 300 and blue.sum() > 300
    # Each X cell (1 in the matrix) holds red ink and each O cell (0) blue ink, and no other colour.
    renderer = renderers.get("tictactoe")
    for r, row in enumerate(lvlm.matrix(state)):
        for c, code in enumerate(row):
            box = renderer.cell_rect(state, 300, 300, f"({r},{c})")
            x0, y0, x1, y1 = (round(v) for v in (box.left(), box.top(), box.right(), box.bottom()))
            has_red, has_blue = bool(red[y0:y1, x0:x1].any()), bool(blue[y0:y1, x0:x1].any())
            assert (has_red, has_blue) == (code == 1, code == 0), (r, c, code)
