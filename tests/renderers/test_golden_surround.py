"""Surround's renderer: golden images (start, a long game with labels and highlights, a crash in a
wide window), where cells are drawn, and speed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

import engine
import renderers
from engine.games.surround import SurroundState
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden

_LOOP = (
    [("straight", "straight")] * 3
    + [("up", "down")] * 6
    + [("left", "right")] * 8
    + [("down", "up")] * 3
    + [("right", "left")] * 4
    + [("down", "up")] * 4
)


def played(moves: list[tuple[str, str]], **options: int) -> SurroundState:
    state = engine.make("surround", **options).initial_state()
    for a, b in moves:
        state = state.apply({0: a, 1: b})
    assert isinstance(state, SurroundState)
    return state


def crashed() -> SurroundState:
    state = played([("straight", "straight")] * 4 + [("up", "down")] * 9)
    assert state.is_over and state.winner == 0
    return state


CASES = [
    Case("surround-start", "surround", lambda: played([]), (512, 512)),
    Case(
        "surround-midgame-labels-highlight",
        "surround",
        lambda: played(_LOOP),
        (512, 512),
        highlight=("(3,22)", "(5,22)"),
        grid_labels=True,
    ),
    Case("surround-crash-wide", "surround", crashed, (900, 400)),
    Case(
        "surround-small-grid",
        "surround",
        lambda: played(_LOOP[:6], rows=10, cols=14),
        (320, 320),
        grid_labels=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_trails_are_drawn_in_their_colours() -> None:
    state = played(_LOOP)
    r = renderers.get("surround")
    image = pixels(r.render(state, 512, 512))
    for seat, (red, green, blue) in ((0, (0x22, 0xD3, 0xEE)), (1, (0xE8, 0x79, 0xF9))):
        # The middle of a trail cell (not the head) is the seat's neon colour.
        cell = r.cell_rect(state, 512, 512, "({},{})".format(*state.trails[seat][2]))
        assert cell is not None
        x, y = int(cell.center().x()), int(cell.center().y())
        near = image[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3)
        assert any(
            abs(int(p[0]) - red) < 60 and abs(int(p[1]) - green) < 60 and abs(int(p[2]) - blue) < 60
            for p in near
        ), (seat, near)


def test_cell_rect_places_cells_and_ignores_moves() -> None:
    state = played([])
    r = renderers.get("surround")
    first = r.cell_rect(state, 800, 400, "(0,0)")
    last = r.cell_rect(state, 800, 400, "(19,39)")
    assert isinstance(first, QRectF) and isinstance(last, QRectF)
    assert first.width() == pytest.approx(first.height()) and last.left() > first.left() + 38 * first.width()
    assert QRectF(0, 0, 800, 400).contains(last)
    assert r.cell_rect(state, 800, 400, "Move Up") is None and r.cell_rect(state, 800, 400, "(20,0)") is None
    assert r.hit_test(state, 800, 400, 400, 200) is None
