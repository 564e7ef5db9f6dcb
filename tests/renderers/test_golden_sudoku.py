"""Sudoku's renderer: golden images, coordinates on every image, clue and player colours, conflicts,
hit-testing and cell rectangles, and speed."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import renderers
from engine.games.sudoku import SudokuState, state_of
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden

NORVIG_GRID1 = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"


def puzzle_state(seed: int = 1, moves: int = 0, difficulty: str = "medium") -> SudokuState:
    """A generated puzzle with its first ``moves`` blanks filled with the solution's digits."""
    state = engine.make("sudoku", difficulty=difficulty).initial_state(seed=seed)
    assert isinstance(state, SudokuState)
    for index in state.blanks()[:moves]:
        state = state.apply(f"{'ABCDEFGHI'[index // 9]}{index % 9 + 1} {state.solution[index]}")
    return state


def conflicted() -> SudokuState:
    """A hand-built grid where a placed 3 at A1 repeats the clue 3 at A3 (legal play never does this)."""
    base = state_of(NORVIG_GRID1)
    cells = (3, *base.cells[1:])
    return SudokuState(givens=base.givens, solution=base.solution, cells=cells, last_action="A1 3")


def solved() -> SudokuState:
    base = state_of(NORVIG_GRID1)
    return SudokuState(givens=base.givens, solution=base.solution, cells=base.solution, moves=49,
                       last_action="I9 2")


CASES = [
    Case("sudoku-puzzle", "sudoku", lambda: puzzle_state(1), (512, 512)),
    Case(
        "sudoku-midgame-highlight",
        "sudoku",
        lambda: puzzle_state(2, moves=12),
        (400, 400),
        highlight=("E5 3", "I9"),
    ),
    Case("sudoku-conflict-wide", "sudoku", conflicted, (480, 300), grid_labels=True),
    Case("sudoku-solved", "sudoku", solved, (320, 320)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_coordinates_are_drawn_with_or_without_grid_labels() -> None:
    r = renderers.get("sudoku")
    state = puzzle_state(1)
    plain, labelled = r.render(state, 320, 320), r.render(state, 320, 320, grid_labels=True)
    assert np.array_equal(pixels(plain), pixels(labelled))
    top_band = pixels(plain)[2:22, 40:280]
    left_band = pixels(plain)[40:280, 2:22]
    assert (top_band.max(axis=2) < 160).sum() > 50 and (left_band.max(axis=2) < 160).sum() > 50


def _ink(image: np.ndarray, rect: object) -> np.ndarray:
    """The pixels of a cell's middle, where its digit is."""
    x, y, w, h = (round(v) for v in (rect.x(), rect.y(), rect.width(), rect.height()))  # type: ignore[attr-defined]
    return image[y + h // 4 : y + 3 * h // 4, x + w // 4 : x + 3 * w // 4].reshape(-1, 3).astype(int)


def test_clues_are_black_placed_digits_blue_and_repeats_red() -> None:
    r = renderers.get("sudoku")
    state = state_of(NORVIG_GRID1).apply("A1 4")
    image = pixels(r.render(state, 400, 400))
    clue = _ink(image, r.cell_rect(state, 400, 400, "A3"))
    placed = _ink(image, r.cell_rect(state, 400, 400, "A1"))
    # pixels() gives RGB: a clue's darkest ink is near black; a placed digit's is blue.
    darkest_clue = clue[clue.sum(axis=1).argmin()]
    darkest_placed = placed[placed.sum(axis=1).argmin()]
    assert darkest_clue.max() < 60
    assert darkest_placed[2] > 150 and darkest_placed[0] < 80
    bad = conflicted()
    image = pixels(r.render(bad, 400, 400))
    red = _ink(image, r.cell_rect(bad, 400, 400, "A3"))
    reddest = red[(red[:, 0] - red[:, 2]).argmax()]
    assert reddest[0] > 180 and reddest[2] < 100


def test_hit_test_and_cell_rect_are_inverse() -> None:
    r = renderers.get("sudoku")
    state = puzzle_state(1)
    for width, height in ((512, 512), (480, 300)):
        for row in "ABCDEFGHI":
            for col in range(1, 10):
                rect = r.cell_rect(state, width, height, f"{row}{col}")
                assert rect is not None
                assert r.hit_test(state, width, height, rect.center().x(), rect.center().y()) == f"{row}{col}"
    assert r.cell_rect(state, 512, 512, "E5 7") == r.cell_rect(state, 512, 512, "E5")
    assert r.cell_rect(state, 512, 512, "(E,5)") == r.cell_rect(state, 512, 512, "E5")
    assert r.cell_rect(state, 512, 512, "J1") is None and r.cell_rect(state, 512, 512, "pass") is None
    assert r.hit_test(state, 512, 512, 3, 3) is None
    top_left = r.cell_rect(state, 512, 512, "A1")
    assert top_left is not None and top_left.center().x() < 100 and top_left.center().y() < 100


def test_a_highlight_changes_only_its_cell() -> None:
    r = renderers.get("sudoku")
    state = puzzle_state(1)
    blank = state.blanks()[3]
    name = f"{'ABCDEFGHI'[blank // 9]}{blank % 9 + 1}"
    base = pixels(r.render(state, 360, 360))
    marked = pixels(r.render(state, 360, 360, highlight=(f"{name} 5", "not a cell")))
    rect = r.cell_rect(state, 360, 360, name)
    assert rect is not None
    changed = np.argwhere((base != marked).any(axis=2))
    assert len(changed) > 100
    assert changed[:, 1].min() >= rect.left() - 3 and changed[:, 1].max() <= rect.right() + 3
    assert changed[:, 0].min() >= rect.top() - 3 and changed[:, 0].max() <= rect.bottom() + 3
