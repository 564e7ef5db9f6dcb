"""Othello's renderer: golden images, coordinates on every image, hit-testing and cell rectangles."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import renderers
from engine.games.othello import ACTIONS, PASS, OthelloState
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden


def othello_state(*moves: str, start: str = "gamebot") -> OthelloState:
    """An Othello state after ``moves`` from the start."""
    state = engine.make("othello", start=start).initial_state(seed=0)
    for move in moves:
        state = state.apply(move)
    assert isinstance(state, OthelloState)
    return state


MIDGAME = ("(C,5)", "(C,6)", "(E,3)", "(C,4)", "(B,7)", "(C,7)", "(B,5)", "(A,4)", "(B,4)", "(F,5)", "(F,6)",
           "(F,3)")

CASES = [
    Case("othello-start", "othello", lambda: othello_state(), (512, 512)),
    Case(
        "othello-midgame-highlight",
        "othello",
        lambda: othello_state(*MIDGAME),
        (400, 400),
        highlight=("(A,6)", "(G,5)"),
    ),
    Case(
        "othello-lvlm-wide",
        "othello",
        lambda: othello_state("(D,3)", "(C,3)", start="lvlm"),
        (480, 300),
        grid_labels=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_coordinates_are_drawn_with_or_without_grid_labels() -> None:
    r = renderers.get("othello")
    state = othello_state("(E,3)")
    plain, labelled = r.render(state, 320, 320), r.render(state, 320, 320, grid_labels=True)
    assert np.array_equal(pixels(plain), pixels(labelled))
    # The label band above the board holds ink (the letters A-H), not just the canvas colour.
    band = pixels(plain)[2:22, 40:280]
    assert (band.max(axis=2) < 140).sum() > 50


def test_hit_test_and_cell_rect_are_inverse() -> None:
    r = renderers.get("othello")
    state = othello_state()
    for width, height in ((512, 512), (480, 300)):
        for action in ACTIONS[:-1]:
            rect = r.cell_rect(state, width, height, action)
            assert rect is not None
            assert r.hit_test(state, width, height, rect.center().x(), rect.center().y()) == action
    assert r.cell_rect(state, 512, 512, "D3") == r.cell_rect(state, 512, 512, "(D,3)")
    assert r.cell_rect(state, 512, 512, PASS) is None
    assert r.hit_test(state, 512, 512, 3, 3) is None
    top_left = r.cell_rect(state, 512, 512, "(A,1)")
    assert top_left is not None and top_left.center().x() < 256 and top_left.center().y() < 256


def test_a_highlight_changes_only_its_square() -> None:
    r = renderers.get("othello")
    state = othello_state()
    base = pixels(r.render(state, 320, 320))
    marked = pixels(r.render(state, 320, 320, highlight=("(B,7)", "not a cell")))
    rect = r.cell_rect(state, 320, 320, "(B,7)")
    assert rect is not None
    changed = np.argwhere((base != marked).any(axis=2))
    assert len(changed) > 100
    assert changed[:, 1].min() >= rect.left() - 3 and changed[:, 1].max() <= rect.right() + 3
    assert changed[:, 0].min() >= rect.top() - 3 and changed[:, 0].max() <= rect.bottom() + 3
