"""Playing and watching games through the window: keyboard, clicks, transport, timeline, replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

import sessions
from desktop.controller import GameSetup, SeatSetup
from desktop.session_browser import SessionBrowser
from tests.desktop.conftest import point_for, until

ARROWS = {"up": Qt.Key.Key_Up, "down": Qt.Key.Key_Down, "left": Qt.Key.Key_Left, "right": Qt.Key.Key_Right}


def test_2048_played_with_the_keyboard_is_recorded(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> list[str]:
        window.start_game(GameSetup("2048", [SeatSetup("human")], seed=7))
        await until(lambda: c.waiting_human() is not None, what="the human's turn")
        played: list[str] = []
        for _ in range(12):
            await until(
                lambda: c.waiting_human() is not None and window.board.interactive, what="board ready"
            )
            legal = c.interactive_legal()
            action = legal[len(played) % len(legal)]
            before = c.count
            qtbot.keyClick(window.board, ARROWS[action])
            await until(lambda before=before: c.count == before + 1, what=f"{action} applied")
            played.append(action)
        return played

    played = run(scenario())
    session = sessions.load_session(c.folder)
    applied = [e["data"]["actions"]["0"] for e in session.steps]
    assert applied == played
    window.refresh()
    # Step N is the decision made on the N-th board: 12 moves played, the 13th is being decided.
    assert window.timeline.step_label.text() == "Step 13 (now)"
    assert window.plot.point_count == 13


def test_2048_wasd_and_autorepeat(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("2048", [SeatSetup("human")], seed=3))
        await until(lambda: c.waiting_human() is not None and window.board.interactive)
        legal = c.interactive_legal()
        key = {"up": "w", "left": "a", "down": "s", "right": "d"}[legal[0]]
        qtbot.keyClick(window.board, key)
        await until(lambda: c.count == 1, what="WASD move")
        # An auto-repeated key press must not play a move.
        from PySide6.QtCore import QEvent
        from PySide6.QtGui import QKeyEvent

        await until(lambda: window.board.interactive)
        action = c.interactive_legal()[0]
        event = QKeyEvent(QEvent.Type.KeyPress, ARROWS[action], Qt.KeyboardModifier.NoModifier, "", True)
        window.board.keyPressEvent(event)
        for _ in range(10):
            await until(lambda: True)
        assert c.count == 1

    run(scenario())


def test_tictactoe_by_clicking_cells_against_minimax(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("minimax")], seed=1, delay=0))
        while True:
            await until(
                lambda: c.finished_status is not None or (c.waiting_human() and window.board.interactive),
                what="my turn or the end",
            )
            if c.finished_status is not None:
                return
            action = c.interactive_legal()[0]
            before = c.count
            qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=point_for(window.board, action))
            await until(lambda before=before: c.count > before, what="click applied")

    run(scenario())
    session = sessions.load_session(c.folder)
    assert session.manifest["status"] == "completed"
    decisions = [e for e in session.events if e["type"] == "decision"]
    assert {d["data"]["source"] for d in decisions if d["seat"] == 0} == {"human"}
    assert {d["data"]["source"] for d in decisions if d["seat"] == 1} == {"bot"}
    # Minimax never loses at tic-tac-toe.
    assert session.manifest["winner"] in (1, None)


def test_watch_bots_with_step_run_and_pause(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    tl = window.timeline

    async def scenario() -> None:
        window.start_game(GameSetup("2048", [SeatSetup("random")], seed=5, paused=True, delay=0.0))
        await until(lambda: c.pacer is not None and c.pacer.waiting, what="paused at the first step")
        assert c.count == 0
        await until(lambda: tl.step_btn.isEnabled(), what="Step enabled")
        qtbot.mouseClick(tl.step_btn, Qt.MouseButton.LeftButton)
        await until(lambda: c.count == 1, what="one step")
        qtbot.mouseClick(tl.step_btn, Qt.MouseButton.LeftButton)
        await until(lambda: c.count == 2, what="two steps")
        c.set_speed(0.01)
        await until(lambda: tl.run_btn.isEnabled())
        qtbot.mouseClick(tl.run_btn, Qt.MouseButton.LeftButton)
        await until(lambda: c.count >= 8, what="running")
        await until(lambda: tl.pause_btn.isEnabled())
        qtbot.mouseClick(tl.pause_btn, Qt.MouseButton.LeftButton)
        await until(lambda: c.pacer.waiting and not c.running, what="paused")
        frozen = c.count
        for _ in range(20):
            await until(lambda: True)
        assert c.count == frozen
        assert window.timeline.mode_pill.text() == "● Live"
        # Space toggles automatic play from anywhere in the window.
        qtbot.keyClick(window.board, Qt.Key.Key_Space)
        assert c.running
        qtbot.keyClick(window.board, Qt.Key.Key_Space)
        assert not c.running

    run(scenario())


def _play_bot_game(window: Any, run: Any) -> Path:
    c = window.controller

    async def scenario() -> None:
        window.start_game(
            GameSetup("tictactoe", [SeatSetup("random"), SeatSetup("minimax")], seed=11, delay=0)
        )
        await until(lambda: c.finished_status is not None, what="game over")

    run(scenario())
    assert c.folder is not None
    return c.folder


def test_scrubbing_the_timeline_shows_each_step(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    _play_bot_game(window, run)
    window.refresh()
    head = c.head
    assert head >= 5
    window.timeline.slider.setValue(2)
    assert c.view_step == 2 and not c.following
    window.refresh()
    assert window.board.state == c.state_at(2)
    assert sum(1 for cell in window.board.state.cells if cell) == 2
    qtbot.keyClick(window, Qt.Key.Key_Left)
    assert c.view_step == 1
    qtbot.keyClick(window, Qt.Key.Key_BracketRight)
    assert c.view_step == 2
    qtbot.keyClick(window, Qt.Key.Key_Home)
    assert c.view_step == 0
    qtbot.keyClick(window, Qt.Key.Key_End)
    assert c.view_step == head
    window.refresh()
    assert window.timeline.step_label.text() == f"Final position · {head} steps"
    c.scrub(head - 1)
    window.refresh()
    assert window.timeline.step_label.text() == f"Step {head} / {head}"


def test_open_saved_session_from_browser_and_replay(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    folder = _play_bot_game(window, run)
    steps = c.head
    run(c.close())

    browser = SessionBrowser(c.root)
    qtbot.addWidget(browser)
    browser.load_now()
    assert browser.model.rowCount() == 1
    assert "Minimax" in browser.model.data(browser.model.index(0, 2))
    browser.filter.setText("no such thing")
    assert browser.proxy.rowCount() == 0
    browser.filter.setText("tic")
    assert browser.proxy.rowCount() == 1
    browser.sig_open_requested.connect(window.open_session)
    browser.table.selectRow(0)
    qtbot.keyClick(browser.table, Qt.Key.Key_Return)

    async def opened() -> None:
        await until(lambda: c.mode == "replay", what="replay mode")

    run(opened())
    assert Path(c.folder) == folder
    assert c.head == steps
    window.refresh()
    assert window.timeline.mode_pill.text() == "Replay"
    first = window.board.state
    window.timeline.slider.setValue(steps)
    window.refresh()
    last = window.board.state
    assert first != last
    assert last.is_over
    assert window.plot.marker.isVisible() and window.plot.marker.value() == steps
    records = c.records_for(1)
    assert any(r["type"] == "action_applied" for r in records)


def test_a_person_takes_back_a_2048_move_with_ctrl_z_and_the_session_records_it(
    window: Any, qtbot: Any, run: Any
) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("2048", [SeatSetup("human")], seed=7))
        await until(lambda: c.waiting_human() is not None and window.board.interactive, what="board ready")
        assert not c.can_undo() and not window.acts.undo.isEnabled()  # nothing to take back yet
        for key in (Qt.Key.Key_Left, Qt.Key.Key_Down):
            before = c.count
            qtbot.keyClick(window.board, key)
            await until(lambda before=before: c.count == before + 1, what="move applied")
        await until(lambda: c.can_undo() and window.board.interactive, what="undo possible")
        window.refresh()
        assert window.acts.undo.isEnabled()
        window.acts.undo.trigger()
        await until(lambda: c.count == 1 and window.board.interactive, what="the move taken back")
        # The model panel leaves the undone move: it shows the last decision still on the board.
        step = window.inspector._model.step
        shown = [r for r in c.records_for(step) if r["type"] == "decision"]
        assert (step, [r["data"]["action"] for r in shown]) == (0, ["left"])

    run(scenario())
    session = sessions.load_session(c.folder)
    assert [e["type"] for e in session.events].count("undo") == 1
    assert session.num_steps == 1 and session.steps[0]["data"]["actions"]["0"] == "left"


def test_undo_is_not_offered_in_a_two_player_game(window: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("minimax")], seed=1, delay=0))
        await until(lambda: c.waiting_human() is not None and window.board.interactive)
        c.board_action(c.interactive_legal()[0])
        await until(lambda: c.count == 2 and c.waiting_human() is not None, what="minimax answered")
        assert not c.can_undo() and not c.undo()

    run(scenario())
