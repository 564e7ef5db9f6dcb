"""Sokoban in the window: arrows and W A S D walk and push, a click next to the player moves there, and
Ctrl+Z takes a push back."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

import sessions
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import point_for, until

#: The first bundled level: the player at (2,5), boxes at (2,3) and (3,4), goals at (2,2) and (3,5).
#: Left walks to (2,4); a second left pushes the box at (2,3) onto the goal at (2,2).


def test_sokoban_played_with_keys_and_clicks_and_a_push_taken_back(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("sokoban", [SeatSetup("human")], seed=0))
        await until(lambda: c.waiting_human() is not None and window.board.interactive, what="board ready")
        qtbot.keyClick(window.board, Qt.Key.Key_Left)
        await until(lambda: c.count == 1, what="left walked")
        await until(lambda: window.board.interactive, what="board ready again")
        qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, "left"))
        await until(lambda: c.count == 2, what="the click pushed the box")
        await until(lambda: c.can_undo() and window.board.interactive, what="undo possible")
        window.refresh()
        window.acts.undo.trigger()
        await until(lambda: c.count == 1 and window.board.interactive, what="the push taken back")
        qtbot.keyClick(window.board, "a")
        await until(lambda: c.count == 2, what="A pushed the box again")

    run(scenario())
    session = sessions.load_session(c.folder)
    assert [e["type"] for e in session.events].count("undo") == 1
    assert [s["data"]["actions"]["0"] for s in session.steps] == ["left", "left"]
    assert session.steps[-1]["data"]["scores"] == [1.0]
