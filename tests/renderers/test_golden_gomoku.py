"""Gomoku's renderer: golden images, coordinates on every image, hit-testing, cell rectangles, the
perception matrix read back off the picture, and speed."""

from __future__ import annotations

import random

import numpy as np
import pytest

import engine
import renderers
from engine.games.gomoku import ACTIONS, GomokuState, lvlm
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def gomoku_state(*moves: str) -> GomokuState:
    """A Gomoku state after ``moves`` from the start."""
    state = engine.make("gomoku").initial_state(seed=0)
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, GomokuState)
    return state


MIDGAME = ("H8", "I9", "I8", "G8", "J8", "K8", "H9", "G10", "H7", "H6", "G7", "J9")
BLACK_WINS = ("A1", "O1", "B2", "N2", "C3", "M3", "D4", "L4", "E5")

CASES = [
    Case("gomoku-empty", "gomoku", lambda: gomoku_state(), (512, 512)),
    Case("gomoku-midgame-highlight", "gomoku", lambda: gomoku_state(*MIDGAME), (400, 400),
         highlight=("F6", "K10", "H8", "not a point")),
    Case("gomoku-black-wins-wide", "gomoku", lambda: gomoku_state(*BLACK_WINS), (480, 300), grid_labels=True),
    Case("gomoku-perceive-board", "gomoku", lambda: lvlm.random_board(random.Random(7)), (640, 640)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_coordinates_are_drawn_with_or_without_grid_labels() -> None:
    r = renderers.get("gomoku")
    state = gomoku_state("H8")
    plain, labelled = r.render(state, 320, 320), r.render(state, 320, 320, grid_labels=True)
    assert np.array_equal(pixels(plain), pixels(labelled))
    # The label bands above and left of the board hold ink (A-O and 1-15), not just the canvas colour.
    px = pixels(plain)
    assert (px[2:18, 40:280].max(axis=2) < 150).sum() > 80
    assert (px[40:280, 2:18].max(axis=2) < 150).sum() > 80


def test_hit_test_and_cell_rect_are_inverse() -> None:
    r = renderers.get("gomoku")
    state = gomoku_state()
    for width, height in ((512, 512), (480, 300)):
        for action in ACTIONS:
            rect = r.cell_rect(state, width, height, action)
            assert rect is not None
            assert r.hit_test(state, width, height, rect.center().x(), rect.center().y()) == action
    assert r.cell_rect(state, 512, 512, "(H,8)") == r.cell_rect(state, 512, 512, "H8")
    assert r.cell_rect(state, 512, 512, "P1") is None and r.cell_rect(state, 512, 512, "H16") is None
    assert r.hit_test(state, 512, 512, 3, 3) is None
    a1, o15 = r.cell_rect(state, 512, 512, "A1"), r.cell_rect(state, 512, 512, "O15")
    assert a1 is not None and o15 is not None
    assert a1.center().x() < 60 and a1.center().y() < 60 and o15.center().x() > 450 and o15.center().y() > 450


def test_a_highlight_changes_only_its_point() -> None:
    r = renderers.get("gomoku")
    state = gomoku_state(*MIDGAME)
    base = pixels(r.render(state, 320, 320))
    marked = pixels(r.render(state, 320, 320, highlight=("C13", "not a point")))
    rect = r.cell_rect(state, 320, 320, "C13")
    assert rect is not None
    changed = np.argwhere((base != marked).any(axis=2))
    assert len(changed) > 40
    assert changed[:, 1].min() >= rect.left() - 2 and changed[:, 1].max() <= rect.right() + 2
    assert changed[:, 0].min() >= rect.top() - 2 and changed[:, 0].max() <= rect.bottom() + 2


def _read_back(state: GomokuState, size: int) -> list[list[int]]:
    """The perception matrix as read off the picture: the colour just below-right of each intersection."""
    r = renderers.get("gomoku")
    px = pixels(r.render(state, size, size)).astype(int)
    out = []
    for row in range(15):
        line = []
        for col in range(15):
            rect = r.cell_rect(state, size, size, ACTIONS[row * 15 + col])
            assert rect is not None
            x = int(rect.center().x() + rect.width() * 0.22)
            y = int(rect.center().y() + rect.height() * 0.22)
            red, green, blue = px[y, x][:3] if px.shape[2] >= 3 else (0, 0, 0)
            if max(red, green, blue) < 90:
                line.append(1)
            elif min(red, green, blue) > 160 and red - blue < 40:
                line.append(2)
            else:
                assert red - blue > 50, (ACTIONS[row * 15 + col], red, green, blue)  # bare wood
                line.append(0)
        out.append(line)
    return out


def test_the_matrix_round_trips_through_the_picture() -> None:
    for seed in (1, 2):
        board = lvlm.random_board(random.Random(seed))
        assert _read_back(board, 512) == lvlm.matrix(board)


def test_the_last_move_and_a_five_are_marked() -> None:
    r = renderers.get("gomoku")
    won = gomoku_state(*BLACK_WINS)
    plain = gomoku_state(*BLACK_WINS[:-1])
    rect = r.cell_rect(won, 512, 512, "C3")  # inside the five, not the last stone
    assert rect is not None
    px_won = pixels(r.render(won, 512, 512)).astype(int)
    px_plain = pixels(r.render(plain, 512, 512)).astype(int)
    cx, cy = int(rect.center().x()), int(rect.center().y())
    red, green, blue = px_won[cy, cx][:3]
    assert red > 150 and green < 120  # the red line through the five
    assert px_plain[cy, cx][:3].max() < 120  # a plain black stone before the win
    last = r.cell_rect(won, 512, 512, "E5")
    assert last is not None
    red, green, _ = px_won[int(last.center().y()), int(last.center().x())][:3]
    assert red > 180 and green < 120
