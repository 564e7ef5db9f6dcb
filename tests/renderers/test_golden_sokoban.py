"""Sokoban's renderer: golden images, what each cell shows, hit-testing and cell rectangles, and speed."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import renderers
from renderers.sokoban import COLORS
from tests.renderers.render_helpers import pixels
from tests.renderers.test_golden import Case, check_golden

ROOM = """\
########
#  .   #
# $$ * #
#.  @  #
########
Title: Golden room
"""


def played(moves: str = "", levels: str = ROOM, **options: object):
    state = engine.make("sokoban", levels=levels, **options).initial_state(seed=0)
    for letter in moves:
        state = state.apply({"u": "up", "d": "down", "l": "left", "r": "right"}[letter])
    return state


CASES = [
    Case("sokoban-start", "sokoban", lambda: played(), (512, 512)),
    Case(
        "sokoban-pushed-highlight-labels",
        "sokoban",
        lambda: played("ll"),
        (640, 400),
        highlight=("up", "(1,3)"),
        grid_labels=True,
    ),
    Case("sokoban-deadlock", "sokoban", lambda: played("ur"), (480, 480)),
    Case("sokoban-bundled-wide", "sokoban", lambda: played(levels="", level=11), (1280, 800)),
    Case("sokoban-generated", "sokoban", lambda: played(levels="generated"), (400, 300)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def _rgb(hex_rgb: str) -> np.ndarray:
    return np.array([int(hex_rgb[i : i + 2], 16) for i in (1, 3, 5)])


def _share(image: np.ndarray, rect: object, hex_rgb: str, tolerance: int = 12) -> float:
    x, y, w, h = (round(v) for v in (rect.x(), rect.y(), rect.width(), rect.height()))  # type: ignore[attr-defined]
    px = image[y : y + h, x : x + w].reshape(-1, 3).astype(int)
    return float((np.abs(px - _rgb(hex_rgb)).max(axis=1) <= tolerance).mean())


def test_every_cell_shows_what_is_on_it() -> None:
    r = renderers.get("sokoban")
    state = played()
    image = pixels(r.render(state, 512, 512))
    rect = lambda item: r.cell_rect(state, 512, 512, item)  # noqa: E731
    assert _share(image, rect("(0,0)"), COLORS["wall"]) > 0.3
    assert _share(image, rect("(1,1)"), COLORS["floor"]) > 0.8
    assert _share(image, rect("(1,3)"), COLORS["goal"]) > 0.05  # the goal ring
    assert _share(image, rect("(2,2)"), COLORS["crate"]) > 0.3
    assert _share(image, rect("(2,5)"), COLORS["crate_goal"]) > 0.3
    assert _share(image, rect("(3,4)"), COLORS["player"]) > 0.1


def test_a_deadlock_marks_the_dead_box_in_red() -> None:
    r = renderers.get("sokoban")
    dead = played("ur")
    assert dead.end == "deadlock"
    image = pixels(r.render(dead, 480, 480))
    (box,) = dead.dead_boxes()
    where = r.cell_rect(dead, 480, 480, "({},{})".format(*dead.level.coords(box)))
    assert _share(image, where, COLORS["dead"], 40) > 0.03
    alive = pixels(r.render(played("u"), 480, 480))
    assert _share(alive, where, COLORS["dead"], 40) == 0.0


def test_hit_test_turns_a_click_next_to_the_player_into_a_move() -> None:
    r = renderers.get("sokoban")
    state = played()
    for size in ((512, 512), (900, 400)):
        for move in ("up", "down", "left", "right"):
            rect = r.cell_rect(state, *size, move)
            assert rect is not None
            assert r.hit_test(state, *size, rect.center().x(), rect.center().y()) == move
        far = r.cell_rect(state, *size, "(1,1)")
        assert far is not None and r.hit_test(state, *size, far.center().x(), far.center().y()) is None
    assert r.hit_test(state, 512, 512, 2, 2) is None
    assert r.cell_rect(state, 512, 512, "(9,9)") is None and r.cell_rect(state, 512, 512, "jump") is None
