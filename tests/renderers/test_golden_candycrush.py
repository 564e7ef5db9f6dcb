"""Candy Crush's renderer: golden images, shapes that tell the colours apart, hit-testing and cell
rectangles, what it reads of a state, and its speed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import engine
import renderers
from engine.games.candycrush import CandyState
from renderers.candycrush import CANDIES
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def start() -> CandyState:
    state = engine.make("candycrush").initial_state(seed=1)
    assert isinstance(state, CandyState)
    return state


def played() -> CandyState:
    state = start()
    for _ in range(3):
        state = state.apply(state.legal_actions()[-1])
    return state


def six_colours_over() -> CandyState:
    game = engine.make("candycrush", colours=6, moves=2)
    state = game.initial_state(seed=2)
    while not state.is_over:
        state = state.apply(state.legal_actions()[0])
    assert isinstance(state, CandyState)
    return state


CASES = [
    Case("candycrush-start", "candycrush", start, (480, 532)),
    Case(
        "candycrush-played-highlight-labels",
        "candycrush",
        played,
        (1280, 800),
        highlight=("((3,4),(4,4))", "(6,1)"),
        grid_labels=True,
    ),
    Case("candycrush-six-colours-over", "candycrush", six_colours_over, (400, 300)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_every_colour_has_its_own_shape() -> None:
    shapes = [shape for _, _, shape in CANDIES.values()]
    assert len(set(shapes)) == len(shapes) == 6
    # Drawn on one board, the six candies differ in silhouette, not only in colour: their ink covers
    # different shares of the cell.
    r = renderers.get("candycrush")
    board = "GCPRYB" * 10 + "GCPR"
    state: Any = SimpleNamespace(
        board=board, score=0, moves_left=5, max_moves=5, waves=(), shuffled=False, last=None
    )
    image = pixels(r.render(state, 660, 740))
    shares = []
    for i in range(6):
        rect = r.cell_rect(state, 660, 740, f"(0,{i})")
        assert rect is not None
        x, y, w, h = (round(v) for v in (rect.x(), rect.y(), rect.width(), rect.height()))
        cell = image[y : y + h, x : x + w].reshape(-1, 3).astype(int)
        ink = (np.abs(cell - cell[0]).sum(axis=1) > 60).mean()  # anything unlike the cell's corner
        shares.append(round(float(ink), 2))
    assert len(set(shares)) >= 5, shares


def test_clicks_name_cells_and_cells_map_back() -> None:
    r = renderers.get("candycrush")
    state = start()
    for spot in ("(0,0)", "(3,4)", "(7,7)"):
        rect = r.cell_rect(state, 800, 880, spot)
        assert rect is not None
        assert r.hit_test(state, 800, 880, rect.center().x(), rect.center().y()) == spot
    assert r.hit_test(state, 800, 880, 2, 2) is None
    swap = r.cell_rect(state, 800, 880, "((3,4),(3,5))")
    one = r.cell_rect(state, 800, 880, "(3,4)")
    assert swap is not None and one is not None and swap.width() > 1.9 * one.width()
    assert r.cell_rect(state, 800, 880, "(8,0)") is None and r.cell_rect(state, 800, 880, "up") is None


def test_a_highlighted_swap_marks_both_cells() -> None:
    r = renderers.get("candycrush")
    state = start()
    plain = pixels(r.render(state, 480, 532))
    marked = pixels(r.render(state, 480, 532, highlight=["((3,4),(4,4))"]))
    changed = np.abs(plain.astype(int) - marked.astype(int)).sum(axis=2) > 40
    for spot in ("(3,4)", "(4,4)"):
        rect = r.cell_rect(state, 480, 532, spot)
        assert rect is not None
        x, y, w, h = (round(v) for v in (rect.x(), rect.y(), rect.width(), rect.height()))
        assert changed[y : y + h, x : x + w].any()
    far = r.cell_rect(state, 480, 532, "(0,0)")
    assert far is not None
    x, y, w, h = (round(v) for v in (far.x(), far.y(), far.width(), far.height()))
    assert not changed[y : y + h, x : x + w].any()
