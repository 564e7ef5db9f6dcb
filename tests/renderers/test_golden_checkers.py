"""Checkers renderer: golden images (the start, a middle game with kings and a highlighted
multi-jump), clicks and cell rectangles, highlights that change the picture, and speed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

import engine
import renderers
from engine.games.checkers import CheckersState, position
from tests.renderers.test_golden import Case, check_golden


def start() -> CheckersState:
    state = engine.make("checkers").initial_state()
    assert isinstance(state, CheckersState)
    return state


def middle() -> CheckersState:
    """White to move with a choice of multi-jumps; a king on each side; Black's last move shown."""
    state = position(
        {
            (0, 1): "w",
            (0, 5): "w",
            (1, 2): "w",
            (2, 3): "w",
            (2, 1): "w",
            (4, 7): "W",
            (3, 2): "b",
            (5, 4): "b",
            (5, 2): "b",
            (6, 7): "b",
            (7, 2): "b",
            (1, 6): "B",
        },
        0,
    )
    return CheckersState(
        board=state.board, mover=0, plies=31, quiet=3, seen=state.seen, last_move="(2,5)->(1,6)"
    )


CASES = [
    Case("checkers-start", "checkers", start, (512, 512)),
    Case(
        "checkers-midgame-king-jump",
        "checkers",
        middle,
        (512, 512),
        highlight=("(2,1)->(4,3)->(6,5)",),
        grid_labels=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_golden(case: Case) -> None:
    check_golden(case.render(), case.name)


def test_the_middle_game_is_what_it_claims() -> None:
    state = middle()
    assert "(2,1)->(4,3)->(6,5)" in state.legal_actions()
    assert state.board.count("W") == 1 and state.board.count("B") == 1


def test_hit_test_and_cell_rect_are_inverse() -> None:
    r = renderers.get("checkers")
    state = start()
    for row in range(8):
        for col in range(8):
            rect = r.cell_rect(state, 512, 512, f"({row},{col})")
            assert isinstance(rect, QRectF) and rect.width() > 40
            assert r.hit_test(state, 512, 512, rect.center().x(), rect.center().y()) == f"({row},{col})"
    move = r.cell_rect(state, 512, 512, "(2,1)->(4,3)->(6,5)")
    assert move == r.cell_rect(state, 512, 512, "(6,5)")
    assert r.cell_rect(state, 512, 512, "(2, 1) -> (3, 2)") == r.cell_rect(state, 512, 512, "(3,2)")
    assert r.cell_rect(state, 512, 512, "up") is None and r.cell_rect(state, 512, 512, "(8,1)") is None
    assert r.hit_test(state, 512, 512, 2, 2) is None


def test_highlights_change_the_picture_and_junk_is_ignored() -> None:
    r = renderers.get("checkers")
    state = middle()
    plain = r.render(state, 256, 256)
    assert r.render(state, 256, 256, highlight=("(2,1)->(4,3)->(6,5)",)) != plain
    assert r.render(state, 256, 256, highlight=("(4,5)",)) != plain
    assert r.render(state, 256, 256, highlight=("nonsense", "(9,9)")) == plain
