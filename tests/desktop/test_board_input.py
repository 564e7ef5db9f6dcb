"""A person's input on the board itself, through the real match loop: Sudoku by clicking a cell and
typing its digit, Minesweeper flags by right-click, and a person's panel standing beside a square
board rather than shrinking it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

import sessions
from desktop.controller import GameSetup, SeatSetup
from tests.desktop.conftest import point_for, until


def _mine(folder: Any) -> list[str]:
    session = sessions.load_session(folder)
    return [e["data"]["action"] for e in session.events if e["type"] == "decision" and e["seat"] == 0]


def test_a_sudoku_cell_is_clicked_then_its_digit_typed(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller
    board = window.board

    async def scenario() -> None:
        await window.start_game(GameSetup("sudoku", [SeatSetup("human")], seed=4, delay=0))
        await until(lambda: c.waiting_human() and board.interactive, what="my turn")
        move = c.interactive_legal()[0]  # "A3 5"
        cell, digit = move.split(" ")
        qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=point_for(board, cell))
        assert board.selected == cell and c.count == 0  # picked, nothing played yet
        qtbot.keyClicks(board, digit)
        await until(lambda: c.count == 1, what="the digit placed")
        assert c.current_state().last_action == move

    run(scenario())
    assert _mine(c.folder)[0].count(" ") == 1


def test_a_typed_digit_that_breaks_a_rule_is_refused_and_nothing_is_played(
    window: Any, qtbot: Any, run: Any
) -> None:
    c = window.controller
    board = window.board

    async def scenario() -> None:
        await window.start_game(GameSetup("sudoku", [SeatSetup("human")], seed=4, delay=0))
        await until(lambda: c.waiting_human() and board.interactive, what="my turn")
        legal = c.interactive_legal()
        cell = legal[0].split(" ")[0]
        wrong = next(str(d) for d in range(1, 10) if f"{cell} {d}" not in legal)
        qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=point_for(board, cell))
        nudges = board.nudges
        qtbot.keyClicks(board, wrong)
        assert board.nudges == nudges + 1 and c.count == 0
        qtbot.keyClick(board, Qt.Key.Key_Escape)
        assert board.selected is None

    run(scenario())


def test_a_right_click_flags_a_minesweeper_cell_and_another_takes_the_flag_off(
    window: Any, qtbot: Any, run: Any
) -> None:
    c = window.controller
    board = window.board
    picked: list[str] = []

    async def scenario() -> None:
        await window.start_game(GameSetup("minesweeper", [SeatSetup("human")], seed=5, delay=0))
        await until(lambda: c.waiting_human() and board.interactive, what="my turn")
        cell = next(a for a in c.interactive_legal() if " " not in a)
        picked.append(cell)
        for n in (1, 2):
            await until(lambda: c.waiting_human() and board.interactive, what="my turn")
            qtbot.mouseClick(board, Qt.MouseButton.RightButton, pos=point_for(board, cell))
            await until(lambda n=n: c.count == n, what="the flag")
        flags = c.current_state().flags
        assert not flags  # on, then off again

    run(scenario())
    assert _mine(c.folder)[:2] == [f"flag {picked[0]}"] * 2


def test_a_persons_panel_stands_beside_a_square_board(window: Any, run: Any) -> None:
    c = window.controller
    window.resize(1280, 800)

    async def scenario() -> None:
        await window.start_game(GameSetup("sudoku", [SeatSetup("human")], seed=4, delay=0))
        await until(lambda: c.waiting_human() and window.action_panel.isVisible(), what="the Fill panel")

    run(scenario())
    area = window.board_area
    area.arrange()
    assert area.beside
    # The board keeps (nearly) the height of the whole area rather than sharing it with the panel.
    assert window.board.board_rect().height() >= 0.8 * (area.height() - area.caption.height())
