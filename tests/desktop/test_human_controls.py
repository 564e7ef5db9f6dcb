"""People play the GameBot games in the window: an offer editor for bargaining, several-click moves
for checkers, and the real-time clock held by Pause. Every test plays through the real match loop and
reads the recorded session back."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

import sessions
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import point_for, until


def test_a_person_bargains_with_the_offer_editor(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    panel = window.action_panel

    async def scenario() -> None:
        setup = GameSetup("bargaining", [SeatSetup("human"), SeatSetup("fair")], seed=3, delay=0)
        await window.start_game(setup)
        await until(lambda: c.waiting_human() and panel.isVisible(), what="my first proposal")
        assert panel.panel is not None and [a.name for a in panel.panel.amounts]
        # No proposal to accept yet: the Accept button is there but disabled.
        assert [b.isEnabled() for b in panel.buttons] == [False]
        pool = c.current_state().pool
        spins = list(panel._inputs.values())
        for spin, count in zip(spins, pool, strict=True):
            spin.setValue(count)  # everything for me
        assert "worth 30" in panel.summary.text()
        before = c.count
        qtbot.mouseClick(panel.submit_button, Qt.MouseButton.LeftButton)
        await until(lambda: c.count > before + 1 or c.finished_status is not None, what="offer and answer")
        # The fair bot's counter-offer can be accepted.
        await until(
            lambda: c.finished_status is not None
            or (c.waiting_human() and bool(panel.buttons) and panel.buttons[0].isEnabled()),
            what="my turn again, with an offer to accept",
        )
        if c.finished_status is None:
            qtbot.mouseClick(panel.buttons[0], Qt.MouseButton.LeftButton)
            await until(lambda: c.finished_status is not None, what="the deal")
        # The game is over: nothing to act on.
        await until(lambda: not panel.isVisible(), what="the panel hidden")

    run(scenario())
    session = sessions.load_session(c.folder)
    mine = [e["data"]["action"] for e in session.events if e["type"] == "decision" and e["seat"] == 0]
    assert mine[0].startswith("P1: (") and mine[-1] == "Agree"


def test_a_person_moves_checkers_pieces_click_by_click(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    board = window.board
    played: list[str] = []

    async def scenario() -> None:
        setup = GameSetup("checkers", [SeatSetup("human"), SeatSetup("random")], seed=2, delay=0)
        await window.start_game(setup)
        for _ in range(4):
            await until(
                lambda: c.finished_status is not None
                or (c.waiting_human() and board.interactive and board.state is c.current_state()),
                what="my turn, shown on the board",
            )
            if c.finished_status is not None:
                return
            legal = c.interactive_legal()
            # The longest move: a multi-jump when there is one, clicked square by square.
            action = max(legal, key=lambda a: (a.count("->"), a))
            cells = action.split("->")
            before = c.count
            for i, cell in enumerate(cells):
                qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=point_for(board, cell))
                if i < len(cells) - 1:
                    assert board.path == "->".join(cells[: i + 1])  # picked so far, waiting for more
            played.append(action)
            await until(lambda before=before: c.count > before, what="the move applied")
            assert board.path is None

    run(scenario())
    session = sessions.load_session(c.folder)
    mine = [e["data"]["action"] for e in session.events if e["type"] == "decision" and e["seat"] == 0]
    assert mine[: len(played)] == played and all("->" in a for a in mine)


def test_escape_drops_a_move_being_built(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    board = window.board

    async def scenario() -> None:
        setup = GameSetup("checkers", [SeatSetup("human"), SeatSetup("random")], seed=2, delay=0)
        await window.start_game(setup)
        await until(lambda: c.waiting_human() and board.interactive, what="my turn")
        first = c.interactive_legal()[0].split("->")[0]
        qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=point_for(board, first))
        assert board.path == first
        qtbot.keyClick(board, Qt.Key.Key_Escape)
        assert board.path is None and c.count == 0

    run(scenario())


def test_pause_holds_the_real_time_clock_and_ticks_can_be_slowed(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        setup = GameSetup("pong", [SeatSetup("human"), SeatSetup("predictor")], seed=1, delay=0)
        await window.start_game(setup)
        await until(lambda: c.steering is not None and window.acts.run.isEnabled(),
                    what="the game shown in the window")
        match = c.steering.match
        window.acts.slower.trigger()
        assert c.tick_scale == 2.0 and match.tick_scale == 2.0
        assert "0.5× speed" in window.statusBar().currentMessage()
        # The clock waits for my first key; a game key starts it.
        assert c.awaiting_first_key and match.clock_held and not c.running
        qtbot.keyClick(window.board, Qt.Key.Key_Up)
        assert c.running and not c.awaiting_first_key
        window.acts.run.trigger()  # running → paused
        assert match.clock_held
        before = c.count
        window.acts.faster.trigger()
        window.acts.run.trigger()
        assert not match.clock_held and c.tick_scale == 1.0
        await until(lambda: c.count > before, what="ticks again")
        c.steering.pause()

    run(scenario())


def test_a_person_moves_a_chess_piece_by_clicking_its_square_then_its_target(
    window: Any, qtbot: Any, run: Any
) -> None:
    c = window.controller
    board = window.board

    async def scenario() -> None:
        setup = GameSetup("chess", [SeatSetup("human"), SeatSetup("search")], seed=1, delay=0)
        await window.start_game(setup)
        await until(lambda: c.waiting_human() and board.interactive and board.state is c.current_state(),
                    what="White to move")
        qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=point_for(board, "g1"))
        assert board.path == "g1"  # the knight is picked up; its squares are highlighted
        before = c.count
        qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=point_for(board, "f3"))
        await until(lambda: c.count > before, what="Nf3 applied")

    run(scenario())
    session = sessions.load_session(c.folder)
    first = next(e["data"] for e in session.events if e["type"] == "decision" and e["seat"] == 0)
    assert first["action"] == "Nf3" and first["source"] == "human"


def test_a_real_time_game_waits_for_the_persons_first_key(window: Any, qtbot: Any, run: Any) -> None:
    import engine

    c = window.controller
    game_id = "mario" if any(e.id == "mario" and e.available for e in engine.registry.entries()) else "pong"
    cls = engine.declaration(game_id)

    async def scenario() -> None:
        seats = [SeatSetup("human")] + [SeatSetup(cls.default_opponent) for _ in cls.seats[1:]]
        await window.start_game(GameSetup(game_id, seats, seed=1, delay=0))
        await until(lambda: c.steering is not None and c.steering.match.clock_held, what="the game shown")
        window.refresh()
        assert c.awaiting_first_key and c.steering.match.clock_held and c.count == 0
        assert window.board_caption.text().startswith("Press a game key to start")
        key = Qt.Key.Key_Right
        qtbot.keyPress(window.board, key)
        await until(lambda: c.count >= 3, what="ticks played once I pressed a key")
        qtbot.keyRelease(window.board, key)
        c.pause()

    run(scenario())
