"""Replay details: torn sessions, export, hover on the board, overriding from the model panel."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

import sessions
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import point_for, until


def _finished_game(window: Any, run: Any) -> Path:
    c = window.controller

    async def scenario() -> None:
        await window.start_game(
            GameSetup("tictactoe", [SeatSetup("random"), SeatSetup("random")], seed=8, delay=0)
        )
        await until(lambda: c.finished_status is not None, what="game over")

    run(scenario())
    return c.folder


def test_torn_session_opens_with_a_warning_banner(window: Any, run: Any) -> None:
    folder = _finished_game(window, run)
    c = window.controller
    steps = c.head
    run(c.close())
    with open(folder / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"v": 1, "seq": 999, "type": "decis')  # a crash in the middle of a line

    async def scenario() -> None:
        await window.open_session(folder)
        await until(lambda: c.mode == "replay")

    run(scenario())
    assert c.warnings
    assert window.warning_banner.isVisible()
    assert "not closed cleanly" in window.warning_banner.text.text()
    assert c.head == steps  # everything before the torn line is still there


def test_export_session_zip(window: Any, run: Any, tmp_path: Path) -> None:
    _finished_game(window, run)
    out = window.controller.export(tmp_path / "game.zip")
    assert out.exists()
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
    assert any(n.endswith("manifest.json") for n in names)
    assert any(n.endswith("events.jsonl") for n in names)


def test_hover_highlights_only_legal_cells_on_my_turn(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        await window.start_game(GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("minimax")], seed=3))
        await until(lambda: c.waiting_human() is not None)
        window.refresh()
        qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, "(1,1)"))
        await until(lambda: c.count == 2, what="my move and minimax's reply")
        await until(lambda: c.waiting_human() is not None)
        window.refresh()

    run(scenario())
    occupied = [
        a
        for a in ("(0,0)", "(0,1)", "(0,2)", "(1,0)", "(1,1)", "(1,2)", "(2,0)", "(2,1)", "(2,2)")
        if a not in c.interactive_legal()
    ]
    free = c.interactive_legal()[0]
    _move(window.board, point_for(window.board, free))
    assert window.board.hover_action == free
    _move(window.board, point_for(window.board, occupied[0]))
    assert window.board.hover_action is None
    # Scrubbed back, the board is read-only: no hover and clicks do nothing.
    window.controller.scrub(0)
    window.refresh()
    assert not window.board.interactive
    before = c.count
    qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, free))
    assert c.count == before
    assert window.board.action_at(QPointF(-5, -5)) is None


def _move(widget: Any, pos: Any) -> None:
    # A synthetic move event: the offscreen platform only reports real cursor moves.
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(pos),
        QPointF(widget.mapToGlobal(pos)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def test_override_from_the_model_panel(window: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> tuple[str, str]:
        await window.start_game(
            GameSetup(
                "tictactoe", [SeatSetup("sim", {"latency": 0}), SeatSetup("random")], seed=6, paused=True
            )
        )
        await until(lambda: c.pacer is not None and c.pacer.waiting and c.model_to_act() == 0)
        c.ask()
        await until(lambda: c.pending is not None)
        proposed = c.pending["action"]
        other = next(a for a in c.interactive_legal() if a != proposed)
        window.inspector.sig_override_requested.emit(other)
        await until(lambda: c.count == 1)
        return proposed, other

    proposed, other = run(scenario())
    session = sessions.load_session(c.folder)
    assert session.steps[0]["data"]["actions"]["0"] == other
    assert any(e["type"] == "override" and e["data"]["proposed"] == proposed for e in session.events)
