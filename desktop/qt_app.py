"""The Qt application and the asyncio loop that runs on it, shared by every window PlayTrace opens.

Qt and asyncio share the GUI thread through qasync. :func:`run` runs a coroutine on a qasync loop
*without* installing an event-loop policy: ``qasync.run`` on Python 3.11 swaps the process-wide policy
for one whose every new loop is a Qt loop, and that leaks into worker threads that start their own
asyncio loop (python-chess runs its Stockfish client in such a thread; a Qt loop there stops before its
first future completes: "Event loop stopped before Future completed"). Here the Qt loop is made by a
loop factory for this one run (as ``asyncio.Runner`` does on every Python ≥ 3.11), so threads keep
the standard policy.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from PySide6.QtCore import QCoreApplication  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop import theme  # noqa: E402

__all__ = ["create_app", "run"]

T = TypeVar("T")


def create_app() -> QApplication:
    """The QApplication with PlayTrace's names and theme (reused if one exists)."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("PlayTrace")
    app.setApplicationDisplayName("PlayTrace")
    app.setOrganizationName("PlayTrace")
    app.setOrganizationDomain("playtrace.invalid")
    theme.apply(app)
    return app


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion on a qasync loop over the application; the process-wide event-loop
    policy is left alone, so a worker thread's ``asyncio.run`` gets a plain asyncio loop."""
    import qasync

    app = QCoreApplication.instance() or create_app()  # a running (test, offscreen) app is reused

    def make_loop() -> asyncio.AbstractEventLoop:
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)  # this (GUI) thread's loop, for code that asks outside a coroutine
        return loop

    try:
        with asyncio.Runner(loop_factory=make_loop) as runner:
            return runner.run(main)
    finally:
        asyncio.set_event_loop(None)
