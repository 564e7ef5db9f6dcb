"""Held keys and ``Game.once_per_press``: in real-time Tetris a held turn, hard drop or hold plays on
its key's press only, while a held Left, Right or Down repeats on every tick; keys held beside a
once-per-press key go on repeating, and a new press plays the action again."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent

import engine
import sessions
from desktop.board_view import BoardView
from desktop.controller import GameSetup, SeatSetup
from engine.core import Game
from tests.desktop import test_held_keys as held
from tests.desktop.conftest import until

KEYS = {
    "left": (Qt.Key.Key_Left, ""),
    "right": (Qt.Key.Key_Right, ""),
    "up": (Qt.Key.Key_Up, ""),
    "down": (Qt.Key.Key_Down, ""),
    "z": (Qt.Key.Key_Z, "z"),
    "c": (Qt.Key.Key_C, "c"),
    "space": (Qt.Key.Key_Space, " "),
}


def key(board: BoardView, name: str, *, down: bool = True, repeat: bool = False) -> None:
    qt_key, text = KEYS[name]
    kind = QEvent.Type.KeyPress if down else QEvent.Type.KeyRelease
    event = QKeyEvent(kind, qt_key, Qt.KeyboardModifier.NoModifier, text, repeat)
    (board.keyPressEvent if down else board.keyReleaseEvent)(event)


@pytest.fixture
def tetris_board(qtbot: Any) -> tuple[BoardView, held.Ticks]:
    game = engine.make("tetris", realtime=0.02)
    board = BoardView()
    qtbot.addWidget(board)
    board.set_game(game)
    ticks = held.Ticks(tuple(game.actions))
    board.set_turn_probe(ticks.probe)
    board.set_state(None, interactive=True, legal=game.actions)
    board.sig_action_requested.connect(ticks.submit)
    return board, ticks


def test_tetris_declares_its_once_per_press_actions_and_other_games_none() -> None:
    tetris = engine.declaration("tetris")
    assert tetris.once_per_press == {"rotate_left", "rotate_right", "hard_drop", "hold"}
    assert tetris.once_per_press <= set(tetris.actions)
    assert {"left", "right", "soft_drop"}.isdisjoint(tetris.once_per_press)
    assert Game.once_per_press == frozenset() and engine.declaration("mario").once_per_press == frozenset()


def test_a_held_rotate_fires_once_while_a_held_left_repeats(
    tetris_board: tuple[BoardView, held.Ticks],
) -> None:
    board, ticks = tetris_board
    assert board.real_time
    key(board, "up")
    for _ in range(3):  # the platform's auto-repeat while Up stays down
        key(board, "up", down=False, repeat=True)
        key(board, "up", repeat=True)
    assert [ticks.tick(board) for _ in range(5)] == ["rotate_right", None, None, None, None]
    assert board.held_keys == ("up",) and board.repeated_action is None
    key(board, "up", down=False)
    key(board, "left")
    assert [ticks.tick(board) for _ in range(5)] == ["left"] * 5
    key(board, "left", down=False)
    key(board, "down")
    assert [ticks.tick(board) for _ in range(3)] == ["soft_drop"] * 3
    key(board, "down", down=False)
    assert ticks.tick(board) is None


@pytest.mark.parametrize(("name", "action"), [("z", "rotate_left"), ("space", "hard_drop"), ("c", "hold")])
def test_each_once_per_press_key_plays_again_only_on_a_new_press(
    tetris_board: tuple[BoardView, held.Ticks], name: str, action: str
) -> None:
    board, ticks = tetris_board
    key(board, name)
    assert [ticks.tick(board) for _ in range(3)] == [action, None, None]
    key(board, name, down=False)
    key(board, name)
    assert [ticks.tick(board) for _ in range(3)] == [action, None, None]


def test_a_turn_pressed_while_left_is_held_plays_once_and_left_goes_on(
    tetris_board: tuple[BoardView, held.Ticks],
) -> None:
    board, ticks = tetris_board
    key(board, "left")
    assert ticks.tick(board) == "left"
    key(board, "up")  # turn while sliding left, Up kept down
    assert [ticks.tick(board) for _ in range(4)] == ["rotate_right", "left", "left", "left"]
    assert board.held_action == "rotate_right" and board.repeated_action == "left"
    key(board, "left", down=False)
    assert [ticks.tick(board) for _ in range(2)] == [None, None]  # only the turn is still held


def test_in_the_window_a_held_turn_turns_the_piece_once(window: Any, run: Any) -> None:
    c = window.controller
    board = window.board

    def decisions() -> list[dict[str, Any]]:
        return [dict(r.get("data") or {}) for r in c.all_records() if r.get("type") == "decision"]

    async def scenario() -> int:
        setup = GameSetup("tetris", [SeatSetup("human")], seed=4, delay=0, options={"realtime": 0.02})
        await window.start_game(setup)
        await until(lambda: c.awaiting_first_key, what="Tetris waiting for my first key")
        board.setFocus()
        start = len(decisions())
        key(board, "up")  # starts the clock, and is held
        await until(lambda: len(decisions()) >= start + 8, what="eight ticks with Up held")
        key(board, "up", down=False)
        c.steering.pause()
        return start

    start = run(scenario())
    played = [e["data"]["action"] for e in sessions.load_session(c.folder).events if e["type"] == "decision"]
    assert played[start:].count("rotate_right") == 1
    assert len(played) - start >= 8
