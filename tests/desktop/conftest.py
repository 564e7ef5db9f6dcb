"""Fixtures for app tests: a qasync event loop on the test's QApplication and a main window.

pytest-qt does not drive asyncio, so scenarios are coroutines run with ``loop.run_until_complete``;
inside them, wait with :func:`until` (which lets both Qt and asyncio work) rather than nesting
``qtbot.waitSignal`` loops.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication

from desktop import theme
from desktop.board_view import BoardView


@pytest.fixture
def aloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync loop on the test QApplication; leftover tasks are cancelled afterwards."""
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(asyncio.sleep(0))
        asyncio.set_event_loop(None)
        loop.close()


@pytest.fixture
def run(aloop: qasync.QEventLoop) -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Run a scenario coroutine to completion on the qasync loop (with a safety timeout)."""

    def runner(coro: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        return aloop.run_until_complete(asyncio.wait_for(coro, timeout))

    return runner


@pytest.fixture
def window(qapp: QApplication, qtbot: Any, tmp_path: Path, aloop: qasync.QEventLoop) -> Iterator[Any]:
    """A themed main window at 1280x800 whose sessions go to ``tmp_path``."""
    from desktop.controller import SessionController
    from desktop.main_window import MainWindow

    theme.apply(qapp)
    controller = SessionController(root=tmp_path / "sessions")
    win = MainWindow(controller)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    yield win
    aloop.run_until_complete(controller.close())


async def until(condition: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> None:
    """Wait (letting Qt and asyncio run) until ``condition()`` is truthy."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def point_for(board: BoardView, action: str) -> QPoint:
    """A widget position whose hit test gives ``action`` (found by scanning the board)."""
    rect = board.board_rect()
    from PySide6.QtCore import QPointF

    steps = 40
    hits = []
    for iy in range(steps):
        for ix in range(steps):
            x = rect.x() + (ix + 0.5) * rect.width() / steps
            y = rect.y() + (iy + 0.5) * rect.height() / steps
            if board.action_at(QPointF(x, y)) == action:
                hits.append((x, y))
    if not hits:
        raise AssertionError(f"no point on the board plays {action}")
    # The middle of the sampled points: well inside the cell, whatever its size.
    x, y = min(hits, key=lambda p: (p[0] - sum(h[0] for h in hits) / len(hits)) ** 2
               + (p[1] - sum(h[1] for h in hits) / len(hits)) ** 2)
    return QPoint(round(x), round(y))


def sim_setup(**sim: Any) -> Any:
    """Tic-tac-toe, the simulated model (X, no latency) against random, paused for stepping by hand."""
    from desktop.controller import GameSetup, SeatSetup

    return GameSetup(
        "tictactoe",
        [SeatSetup("sim", {"latency": 0, **sim}), SeatSetup("random")],
        seed=4,
        paused=True,
        delay=0,
    )


async def paused_at_model(window: Any, setup: Any = None) -> Any:
    """Start ``setup`` (default :func:`sim_setup`) and wait until the model is to act, paused."""
    c = window.controller
    await window.start_game(setup or sim_setup())
    await until(lambda: c.pacer is not None and c.pacer.waiting and c.model_to_act() == 0, what="model turn")
    return c
