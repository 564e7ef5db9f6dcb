"""Reversi's renderer (LVLM-Playground's style): golden images, its labels, squares named "D4", the
perceive matrix read back off the picture, and speed."""

from __future__ import annotations

import random

import numpy as np
import pytest

import engine
import renderers
from engine.games.othello import ReversiState, lvlm
from engine.games.othello.reversi import CELLS, PASS
from renderers.othello import ReversiRenderer
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def reversi_state(*moves: str) -> ReversiState:
    """A Reversi state after ``moves`` from the start."""
    state = engine.make("reversi").initial_state(seed=0)
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, ReversiState)
    return state


def random_board(seed: int) -> ReversiState:
    state = lvlm.random_board(random.Random(seed))
    assert isinstance(state, ReversiState)
    return state


MIDGAME = ("E6", "D6", "C6", "F6", "C4", "B6", "F7", "C3", "C2", "B2", "D7", "C7", "A2", "B4")

CASES = [
    Case("reversi-start", "reversi", lambda: reversi_state(), (512, 512)),
    Case("reversi-midgame-highlight", "reversi", lambda: reversi_state(*MIDGAME), (400, 400),
         highlight=("B3", "6g")),
    Case("reversi-random-board", "reversi", lambda: random_board(5), (512, 512)),
    Case("reversi-wide", "reversi", lambda: reversi_state("C4", "C3"), (480, 300), grid_labels=True),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_registered_and_labelled_the_lvlm_way() -> None:
    r = renderers.get("reversi")
    assert isinstance(r, ReversiRenderer)
    image = pixels(r.render(reversi_state(), 320, 320))
    area = r.cell_rect(reversi_state(), 320, 320, "A1")
    assert area is not None
    top_band = image[2 : int(area.top()) - 2, int(area.left()) : 300, :3]
    left_band = image[int(area.top()) : 300, 2 : int(area.left()) - 2, :3]
    # Labels are bold black: dark ink in both bands (digits above, letters on the left).
    assert (top_band.max(axis=2) < 60).sum() > 40 and (left_band.max(axis=2) < 60).sum() > 40
    # Row letters are taller than wide and stack down the left: ink spreads over the band's height.
    rows_with_ink = np.nonzero((left_band.max(axis=2) < 60).any(axis=1))[0]
    assert rows_with_ink.max() - rows_with_ink.min() > 200


def test_hit_test_and_cell_rect_are_inverse_and_name_row_then_column() -> None:
    r = renderers.get("reversi")
    state = reversi_state()
    for width, height in ((512, 512), (480, 300)):
        for name in CELLS:
            rect = r.cell_rect(state, width, height, name)
            assert rect is not None
            assert r.hit_test(state, width, height, rect.center().x(), rect.center().y()) == name
    a8, h1 = r.cell_rect(state, 512, 512, "A8"), r.cell_rect(state, 512, 512, "H1")
    assert a8 is not None and h1 is not None
    assert a8.center().y() < 100 and a8.center().x() > 400  # row A is the top row; column 8 the right
    assert h1.center().y() > 400 and h1.center().x() < 100
    assert r.cell_rect(state, 512, 512, "4d") == r.cell_rect(state, 512, 512, "D4")
    assert r.cell_rect(state, 512, 512, "(D,4)") is None and r.cell_rect(state, 512, 512, PASS) is None
    assert r.hit_test(state, 512, 512, 3, 3) is None


def test_the_perceive_matrix_is_what_the_picture_shows() -> None:
    r = renderers.get("reversi")
    for seed in range(4):
        state = random_board(seed)
        image = pixels(r.render(state, 512, 512))[:, :, :3].astype(int)
        for row, values in enumerate(lvlm.matrix(state)):
            for col, value in enumerate(values):
                rect = r.cell_rect(state, 512, 512, f"{'ABCDEFGH'[row]}{col + 1}")
                assert rect is not None
                centre = image[int(rect.center().y()), int(rect.center().x())]
                green, dark, light = tuple(centre) == (0, 128, 0), centre.max() < 40, centre.min() > 215
                drawn = 0 if green else 1 if dark else 2 if light else -1
                assert drawn == value, (row, col, centre)


def test_paper_style_cells_and_borders() -> None:
    r = renderers.get("reversi")
    state = reversi_state()
    image = pixels(r.render(state, 512, 512))[:, :, :3].astype(int)
    rect = r.cell_rect(state, 512, 512, "A1")
    assert rect is not None
    assert tuple(image[int(rect.center().y()), int(rect.center().x())]) == (0, 128, 0)
    border = image[int(rect.center().y()), int(rect.right()) - 1 : int(rect.right()) + 2]
    assert border.max(axis=1).min() < 80  # a black line between A1 and A2


def test_a_highlight_changes_only_its_square() -> None:
    r = renderers.get("reversi")
    state = reversi_state()
    base = pixels(r.render(state, 320, 320))
    marked = pixels(r.render(state, 320, 320, highlight=("G2", "(B,7)")))
    rect = r.cell_rect(state, 320, 320, "G2")
    assert rect is not None
    changed = np.argwhere((base != marked).any(axis=2))
    assert len(changed) > 100
    assert changed[:, 1].min() >= rect.left() - 3 and changed[:, 1].max() <= rect.right() + 3
    assert changed[:, 0].min() >= rect.top() - 3 and changed[:, 0].max() <= rect.bottom() + 3
