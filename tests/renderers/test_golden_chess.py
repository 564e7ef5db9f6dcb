"""Chess's renderer: golden images, coordinates, hit-testing, cell rectangles and speed."""

from __future__ import annotations

import pytest

import engine
import renderers
from engine.games.chess import ChessState, position
from tests.renderers.test_golden import Case, check_golden


def chess_state(*moves: str) -> ChessState:
    state = engine.make("chess").initial_state(seed=0)
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, ChessState)
    return state


CASES = [
    Case("chess-start", "chess", lambda: chess_state(), (512, 512)),
    Case(
        "chess-check-highlight",
        "chess",
        lambda: chess_state("e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"),
        (400, 400),
        highlight=("a3", "Nb8"),
    ),
    Case("chess-wide", "chess", lambda: position("8/P6k/8/8/8/8/5K2/8 w - - 0 1"), (480, 300)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_hit_test_and_cell_rect_are_inverse() -> None:
    r = renderers.get("chess")
    state = chess_state()
    for width, height in ((512, 512), (480, 300)):
        for file in "abcdefgh":
            for rank in "12345678":
                rect = r.cell_rect(state, width, height, file + rank)
                assert rect is not None
                assert r.hit_test(state, width, height, rect.center().x(), rect.center().y()) == file + rank
    a1 = r.cell_rect(state, 512, 512, "a1")
    h8 = r.cell_rect(state, 512, 512, "h8")
    assert a1 is not None and h8 is not None
    assert a1.center().x() < 256 < a1.center().y()  # a1 bottom-left, h8 top-right
    assert h8.center().y() < 256 < h8.center().x()
    assert r.cell_rect(state, 512, 512, "Nf3") == r.cell_rect(state, 512, 512, "f3")
    assert r.cell_rect(state, 512, 512, "pass") is None
    assert r.hit_test(state, 512, 512, 2, 2) is None


def test_pieces_on_the_screen_match_the_matrix() -> None:
    """Spot check: a square with a white piece is brighter in its centre than an empty one."""
    from engine.games.chess import lvlm
    from tests.renderers.render_helpers import pixels

    r = renderers.get("chess")
    state = chess_state("e4")
    image = pixels(r.render(state, 512, 512))
    grid = lvlm.matrix(state)
    for name, (row, col) in {"e4": (4, 4), "e2": (6, 4), "d8": (0, 3)}.items():
        rect = r.cell_rect(state, 512, 512, name)
        assert rect is not None
        x, y = int(rect.center().x()), int(rect.center().y())
        patch = image[y - 3 : y + 3, x - 3 : x + 3].mean()
        if grid[row][col] == 0:
            assert 130 < patch < 232  # bare board colour (e2 is empty after e4, tinted as the last move)
        elif grid[row][col] < 0:
            assert patch < 130  # a black piece
        else:
            assert patch > 235  # a white piece
