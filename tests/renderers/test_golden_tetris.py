"""Tetris's renderer: golden images (the start, a game in progress with hold, ghost and preview, a
topped-out game, a square picture), what it reads of a state, where things are drawn, and its speed."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import engine
import renderers
from engine.games.tetris import TetrisState
from tests.renderers.render_helpers import changed_mask, pixels
from tests.renderers.test_golden import Case, check_golden

GAME = engine.make("tetris")

#: A game in progress: a ragged stack with a hole and a well, the held J, the T falling.
MIDGAME_ROWS = [
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "..........",
    "......O...",
    "....SSO...",
    "Z..SSLO.IO",
    "ZZ.JLLL.IO",
    "JZ.JJSS.I.",
    "JJTTLSSZIO",
    "LTTTLZZZ.O",
]


def start_state() -> TetrisState:
    state = GAME.initial_state(seed=3)
    assert isinstance(state, TetrisState)
    return state


def midgame_state() -> TetrisState:
    data = start_state().to_json() | {
        "board": MIDGAME_ROWS,
        "piece": "T",
        "rotation": 1,
        "row": 4,
        "col": 1,
        "queue": "SZIOL",
        "bag": "J",
        "hold": "J",
        "held": True,
        "pieces": 31,
        "lines": 6,
        "step": 187,
        "last": "rotate_right",
    }
    state = GAME.state_from_json(data)
    assert isinstance(state, TetrisState)
    return state


def topped_state() -> TetrisState:
    rows = ["..........", "..........", *(["XXXX.XXXX."] * 18)]
    data = start_state().to_json() | {
        "board": [r.replace("X", "Z") for r in rows],
        "piece": "O",
        "row": 0,
        "col": 3,
        "queue": "ITLSZ",
        "bag": "JO",
        "pieces": 12,
        "step": 61,
    }
    state = GAME.state_from_json(data).apply("hard_drop")
    assert isinstance(state, TetrisState) and state.topped
    return state


CASES = [
    Case("tetris-start", "tetris", start_state, (400, 320)),
    Case("tetris-midgame-hold-ghost", "tetris", midgame_state, (1280, 800)),
    Case("tetris-topped-out-small", "tetris", topped_state, (340, 240)),
    Case("tetris-midgame-square", "tetris", midgame_state, (420, 420)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_the_ghost_and_the_falling_piece_are_drawn_where_they_are() -> None:
    r = renderers.get("tetris")
    state = midgame_state()
    left = dataclasses.replace(state.apply("left"), step=state.step)  # one column left, one row down
    mask = changed_mask(r.render(state, 640, 400), r.render(left, 640, 400))
    rows = np.flatnonzero(mask.any(axis=1))
    columns = np.flatnonzero(mask.any(axis=0))
    assert rows.size and columns.size
    # Only the well changed (the falling piece and its ghost), never the side panels.
    assert columns.min() > 640 * 0.3 and columns.max() < 640 * 0.7


def test_the_well_is_dark_and_the_canvas_light() -> None:
    image = pixels(renderers.get("tetris").render(start_state(), 400, 320))
    well = image[120:200, 170:230].reshape(-1, 3)
    assert np.median(well, axis=0).max() < 60 and image[4, 4].min() > 220


def test_reads_only_public_attributes() -> None:
    state: Any = SimpleNamespace(
        board=bytes(200),
        kinds="IJLOSTZ",
        width=10,
        height=20,
        piece="S",
        cells=lambda: ((0, 4), (0, 5), (1, 3), (1, 4)),
        ghost_cells=lambda: ((18, 4), (18, 5), (19, 3), (19, 4)),
        shape=TetrisState.shape,
        queue="IOT",
        hold="",
        held=False,
        raw_score=0,
        lines=0,
        pieces=0,
        step=0,
        max_steps=2000,
        is_over=False,
        topped=False,
        ending="",
    )
    r = renderers.get("tetris")
    assert not r.render(state, 300, 240).isNull()
    assert r.hit_test(state, 300, 240, 150, 120) is None
