"""The bargaining renderer: golden images, what a seat's view shows, highlights and speed."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import renderers
from engine.games.bargaining import AGREE, BargainingState
from renderers.bargaining import ITEM_COLORS, parse_division
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden, matches

OPEN = "P1: (3, 0, 1), P2: (1, 7, 0)"  # seed 0: pool (4, 7, 1); Player1 values (3, 1, 11), Player2 (5, 1, 3)
COUNTER = "P1: (1, 2, 1), P2: (3, 5, 0)"
THIRD = "P1: (2, 2, 1), P2: (2, 5, 0)"


def bg_state(*actions: str, seed: int = 0, **options: object) -> BargainingState:
    """A bargaining game from ``seed`` after ``actions``."""
    state = engine.make("bargaining", **options).initial_state(seed=seed)
    for action in actions:
        state = state.apply(action)
    assert isinstance(state, BargainingState)
    return state


def stopped() -> BargainingState:
    state = bg_state(OPEN, COUNTER, stop_probability=1.0, rounds_before_stop=2)
    assert state.end == "stopped"
    return state


CASES = [
    Case("bargaining-opening-p1-view", "bargaining", lambda: bg_state().observe(0), (360, 360)),
    Case(
        "bargaining-round4-p2-view",
        "bargaining",
        lambda: bg_state(OPEN, COUNTER, THIRD).observe(1),
        (512, 512),
    ),
    Case("bargaining-deal-full", "bargaining", lambda: bg_state(OPEN, COUNTER, THIRD, AGREE), (400, 400)),
    Case("bargaining-stopped-wide", "bargaining", stopped, (480, 360)),
    Case(
        "bargaining-highlight-p1-view",
        "bargaining",
        lambda: bg_state(OPEN, COUNTER).observe(0),
        (400, 400),
        highlight=("P1: (4, 1, 1), P2: (0, 6, 0)",),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_the_renderer_is_registered() -> None:
    assert renderers.has("bargaining") and type(renderers.get("bargaining")).__name__ == "BargainingRenderer"


def test_a_view_and_the_full_state_differ_only_by_what_is_known() -> None:
    r = renderers.get("bargaining")
    state = bg_state(OPEN, COUNTER)
    mine, theirs, full = (r.render(s, 400, 400) for s in (state.observe(0), state.observe(1), state))
    assert not matches(mine, theirs) and not matches(mine, full)


def test_each_item_row_draws_its_icons_in_its_colour() -> None:
    image = pixels(renderers.get("bargaining").render(bg_state(OPEN), 512, 512))
    for hex_rgb in ITEM_COLORS:
        rgb = np.array([int(hex_rgb[i : i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(image.astype(int) - rgb).sum(axis=2) < 12).sum() > 200, hex_rgb


def test_highlights_draw_that_split_and_agree_frames_the_latest() -> None:
    r = renderers.get("bargaining")
    state = bg_state(OPEN, COUNTER).observe(0)
    plain = r.render(state, 400, 400)
    assert not matches(plain, r.render(state, 400, 400, highlight=("P1: (4, 7, 1), P2: (0, 0, 0)",)))
    assert not matches(plain, r.render(state, 400, 400, highlight=(AGREE,)))
    assert matches(plain, r.render(state, 400, 400, highlight=("(1,1)", "up")))
    assert parse_division("P1: (4, 7, 1), P2: (0, 0, 0)") == ((4, 7, 1), (0, 0, 0))
    assert parse_division("Agree") is None


def test_the_board_has_no_click_targets() -> None:
    r = renderers.get("bargaining")
    assert r.hit_test(bg_state(), 512, 512, 256, 256) is None
    assert r.cell_rect(bg_state(), 512, 512, OPEN) is None
