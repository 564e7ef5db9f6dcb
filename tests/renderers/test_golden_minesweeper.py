"""Minesweeper's renderer: golden images, coordinates on every image, what each cell shows (the LVLM
matrix read back from the picture), the layout after a loss and a win, hit-testing and cell
rectangles, and speed."""

from __future__ import annotations

import random

import numpy as np
import pytest

import engine
import renderers
from engine.games.minesweeper import MinesweeperState, lvlm
from renderers.minesweeper import NUMBER_COLORS
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def played(seed: int = 2, *moves: str, **options: object) -> MinesweeperState:
    state = engine.make("minesweeper", **options).initial_state(seed=seed)
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, MinesweeperState)
    return state


def won() -> MinesweeperState:
    state = played(2, "flag A6")
    for index in range(64):
        if index not in (state.mines or ()) and state.shown[index] == -1 and not state.is_over:
            state = state.apply(state.name(index))
    assert state.won
    return state


CASES = [
    Case("minesweeper-start", "minesweeper", lambda: played(2), (512, 512)),
    Case(
        "minesweeper-midgame-flags-highlight",
        "minesweeper",
        lambda: played(2, "A1", "A3", "flag A6", "flag B3").observe(0),
        (400, 400),
        highlight=("C4", "flag H8"),
    ),
    Case("minesweeper-lost", "minesweeper", lambda: played(2, "A1", "flag A4", "A6"), (512, 512)),
    Case("minesweeper-won", "minesweeper", won, (320, 320)),
    Case(
        "minesweeper-perceive-board", "minesweeper", lambda: lvlm.random_board(random.Random(1)), (512, 512)
    ),
    Case(
        "minesweeper-hard-wide",
        "minesweeper",
        lambda: played(1, "H8", level="hard"),
        (480, 300),
        grid_labels=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_coordinates_are_drawn_with_or_without_grid_labels() -> None:
    r = renderers.get("minesweeper")
    state = played(2)
    plain, labelled = pixels(r.render(state, 400, 400)), pixels(r.render(state, 400, 400, grid_labels=True))
    assert np.array_equal(plain, labelled)
    a1, a8, h1 = (r.cell_rect(state, 400, 400, c) for c in ("A1", "A8", "H1"))
    assert a1 is not None and a8 is not None and h1 is not None
    # Dark ink above the first row (the column numbers) and left of the first column (the letters).
    above = plain[
        round(a1.top() - a1.height() * 0.9) : round(a1.top() - 2), round(a1.left()) : round(a8.right())
    ]
    left = plain[
        round(a1.top()) : round(h1.bottom()), round(a1.left() - a1.width() * 0.9) : round(a1.left() - 3)
    ]
    assert (above.max(axis=2) < 100).sum() > 40 and (left.max(axis=2) < 100).sum() > 40


def _cell(image: np.ndarray, rect: object) -> np.ndarray:
    x, y, w, h = (round(v) for v in (rect.x(), rect.y(), rect.width(), rect.height()))  # type: ignore[attr-defined]
    return image[y + 2 : y + h - 2, x + 2 : x + w - 2].reshape(-1, 3).astype(int)


def _read(image: np.ndarray, rect: object) -> int:
    """What a cell shows in the picture, in the LVLM matrix's code (-1, 0-8, 9)."""
    px = _cell(image, rect)
    if (px[:, 0] > 200).mean() > 0.3 and (px[:, 1] < 90).mean() > 0.3:
        return 9  # the red square of the revealed mine
    for value, hex_rgb in NUMBER_COLORS.items():
        rgb = np.array([int(hex_rgb[i : i + 2], 16) for i in (1, 3, 5)])
        if (np.abs(px - rgb).max(axis=1) < 30).sum() > 8:
            return value
    middle = px[len(px) // 2]
    return 0 if middle.min() > 220 else -1  # flat light grey, or the darker raised face


def test_the_picture_shows_exactly_the_matrix() -> None:
    r = renderers.get("minesweeper")
    for seed in range(3):
        board = lvlm.random_board(random.Random(seed))
        image = pixels(r.render(board, 512, 512))
        matrix = lvlm.matrix(board)
        for row in range(8):
            for col in range(8):
                rect = r.cell_rect(board, 512, 512, f"{'ABCDEFGH'[row]}{col + 1}")
                assert _read(image, rect) == matrix[row][col], (seed, row, col)


def test_a_lost_game_shows_the_layout_and_a_players_view_never_does() -> None:
    r = renderers.get("minesweeper")
    state = played(2, "A1")
    mine = next(state.name(i) for i in sorted(state.mines or ()) if state.name(i) != "A6")
    lost = state.apply("A6")
    image = pixels(r.render(lost, 400, 400))
    dark = _cell(image, r.cell_rect(lost, 400, 400, mine))
    assert (dark.max(axis=1) < 40).sum() > 20  # the bomb's black body
    view_image = pixels(r.render(state.observe(0), 400, 400))
    grey = _cell(view_image, r.cell_rect(state, 400, 400, mine))
    assert (grey.max(axis=1) < 40).sum() == 0
    assert np.array_equal(view_image, pixels(r.render(state, 400, 400)))  # a live board never shows it


def test_hit_test_and_cell_rect_are_inverse() -> None:
    r = renderers.get("minesweeper")
    for state, size in ((played(2), (512, 512)), (played(1, level="hard"), (480, 300))):
        for index in range(state.size):
            name = state.name(index)
            rect = r.cell_rect(state, *size, name)
            assert rect is not None
            assert r.hit_test(state, *size, rect.center().x(), rect.center().y()) == name
    state = played(2)
    assert r.cell_rect(state, 512, 512, "flag C4") == r.cell_rect(state, 512, 512, "C4")
    assert r.cell_rect(state, 512, 512, "(C,4)") == r.cell_rect(state, 512, 512, "C4")
    assert r.cell_rect(state, 512, 512, "I1") is None and r.cell_rect(state, 512, 512, "pass") is None
    assert r.hit_test(state, 512, 512, 3, 3) is None


def test_a_highlight_changes_only_its_cell() -> None:
    r = renderers.get("minesweeper")
    state = played(2, "A1")
    base = pixels(r.render(state, 360, 360))
    marked = pixels(r.render(state, 360, 360, highlight=("D6", "not a cell")))
    rect = r.cell_rect(state, 360, 360, "D6")
    assert rect is not None
    changed = np.argwhere((base != marked).any(axis=2))
    assert len(changed) > 50
    assert changed[:, 0].min() >= rect.top() - 2 and changed[:, 0].max() <= rect.bottom() + 2
    assert changed[:, 1].min() >= rect.left() - 2 and changed[:, 1].max() <= rect.right() + 2
