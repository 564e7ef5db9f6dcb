"""The Connect Four renderer: golden images, clicks on columns, cell rectangles, and frames composed from
boards drawn once per size that match drawing every shape (its speed: benchmarks/bench_render.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import engine
import renderers
from engine.games.connect4 import ConnectFourState
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def c4_state(*columns: int) -> ConnectFourState:
    """A Connect Four state after discs are dropped into ``columns``."""
    state = engine.make("connect4").initial_state(seed=0)
    for col in columns:
        state = state.apply(state.playable_cell(col))
    assert isinstance(state, ConnectFourState)
    return state


CASES = [
    Case("connect4-empty", "connect4", lambda: c4_state(), (320, 320)),
    Case(
        "connect4-x-wins-diagonal", "connect4", lambda: c4_state(0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3), (320, 320)
    ),
    Case(
        "connect4-labels-highlight-wide",
        "connect4",
        lambda: c4_state(3, 3, 4, 2),
        (400, 300),
        highlight=("(1,2)", "(0,5)"),
        grid_labels=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_the_renderer_is_registered() -> None:
    assert renderers.has("connect4") and type(renderers.get("connect4")).__name__ == "ConnectFourRenderer"


def test_a_click_anywhere_in_a_column_means_its_playable_cell() -> None:
    r = renderers.get("connect4")
    state = c4_state(3, 3, *[0] * 6)
    for item in ("(0,1)", "(2,3)", "(5,6)", "(4,4)"):
        rect = r.cell_rect(state, 512, 512, item)
        assert rect is not None
        col = int(item[3])
        expected = state.playable_cell(col) or f"(5,{col})"
        for y in (rect.center().y(), 40.0, 500.0):  # the hole, the numbers above, below the frame
            assert r.hit_test(state, 512, 512, rect.center().x(), y) == expected
    assert r.hit_test(state, 512, 512, r.cell_rect(state, 512, 512, "(3,0)").center().x(), 200) == "(5,0)"
    assert r.hit_test(state, 512, 512, 5, 256) is None  # left of the frame
    assert r.cell_rect(state, 512, 512, "(6,0)") is None and r.cell_rect(state, 512, 512, "column 3") is None


def test_cell_rect_is_where_the_disc_is_drawn() -> None:
    r = renderers.get("connect4")
    empty = pixels(r.render(c4_state(), 320, 320))
    one = pixels(r.render(c4_state(4), 320, 320))
    rect = r.cell_rect(c4_state(4), 320, 320, "(0,4)")
    assert rect is not None
    x, y = int(rect.center().x()), int(rect.center().y())
    red = one[y + int(rect.height() * 0.2), x]
    assert red[0] > 180 and red[1] < 90 and red[2] < 90  # a red disc, bottom row (row 0 at the bottom)
    assert (empty[y, x] != one[y, x]).any()
    top = r.cell_rect(c4_state(4), 320, 320, "(5,4)")
    assert top is not None and top.top() < rect.top()


@pytest.mark.parametrize("size", [(320, 320), (401, 299), (97, 130)])
def test_frames_composed_from_boards_drawn_once_match_drawing_every_shape(size: tuple[int, int]) -> None:
    from renderers.connect4 import ConnectFourRenderer

    layered, direct = ConnectFourRenderer(), ConnectFourRenderer()
    direct.layered = False
    game = engine.make("connect4")
    state, rng = game.initial_state(seed=5), random.Random(5)
    while True:
        for options in ({}, {"grid_labels": True, "highlight": ("(0,3)",)}):
            ours, theirs = layered.render(state, *size, **options), direct.render(state, *size, **options)
            diff = np.abs(pixels(ours).astype(np.int16) - pixels(theirs).astype(np.int16))
            assert diff.max() <= 2, f"{diff.max()} after {state.step} moves"  # premultiplied rounding
        if state.is_over:
            break
        state = game.play_random(state, rng)
