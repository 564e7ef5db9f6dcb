"""A person plays Tetris in the window with the keyboard, turn by turn and in real time, through the
real match loop; the recorded session is read back."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

import sessions
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import until


def test_a_person_steers_and_drops_a_piece_with_the_keys(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    board = window.board

    async def scenario() -> None:
        setup = GameSetup("tetris", [SeatSetup("human")], seed=4, delay=0, options={"gravity": False})
        await window.start_game(setup)
        for key in (Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Space):
            await until(lambda: c.waiting_human() and board.interactive, what="my turn")
            before = c.count
            qtbot.keyClick(board, key)
            await until(lambda before=before: c.count > before, what=f"key {key} applied")

    run(scenario())
    session = sessions.load_session(c.folder)
    mine = [e["data"]["action"] for e in session.events if e["type"] == "decision"]
    assert mine == ["left", "rotate_right", "hard_drop"]
    assert c.current_state().pieces == 1


def test_in_real_time_the_piece_falls_while_the_person_waits(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        setup = GameSetup("tetris", [SeatSetup("human")], seed=4, delay=0, options={"realtime": 0.02})
        await window.start_game(setup)
        await until(lambda: c.awaiting_first_key and window.acts.run.isEnabled(), what="the clock waiting")
        window.acts.run.trigger()  # Run starts the clock as a game key would
        await until(lambda: c.count >= 3, what="three ticks without a key")
        c.steering.pause()

    run(scenario())
    session = sessions.load_session(c.folder)
    decisions = [e["data"] for e in session.events if e["type"] == "decision"]
    assert len(decisions) >= 3
    assert all(d["action"] == "no_op" and d["source"] == "default" for d in decisions[:3])
