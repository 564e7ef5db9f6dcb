"""The PlayTrace desktop application: ``playtrace`` with no arguments (or ``python -m desktop``).

Qt and asyncio share the GUI thread through qasync: model calls, the match loop and session loading
are coroutines on the Qt event loop, so the window never blocks and no locks are needed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from PySide6.QtCore import QEvent, QObject, Signal  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop.qt_app import create_app, run  # noqa: E402

#: Set to 1 to skip the launch demo (the simulated model playing).
NO_DEMO_ENV = "PLAYTRACE_NO_DEMO"
#: Set to 1 to close the app as soon as its first window is on screen, after printing
#: ``playtrace: window shown``: start-up measurements (benchmarks/bench_bundle.py) and installer tests.
EXIT_WHEN_SHOWN_ENV = "PLAYTRACE_EXIT_WHEN_SHOWN"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playtrace", description="PlayTrace desktop app")
    demo = parser.add_mutually_exclusive_group()
    demo.add_argument("--no-demo", action="store_true", help="do not start the simulated-model demo")
    demo.add_argument("--demo", action="store_true",
                      help="start the simulated-model demo even after you have played your own games")
    parser.add_argument("--open", metavar="SESSION", type=Path, help="open a saved session for replay")
    parser.add_argument("--presenter", action="store_true",
                        help="start in presenter mode (large type, board and reasoning only; F5 leaves it)")
    return parser


def want_demo(no_demo_flag: bool, *, force: bool = False, demo_done: bool = False) -> bool:
    """Whether to start the demo on launch.

    The demo plays on launch until the person has started a game of their own (``demo_done``);
    ``--demo`` (``force``) plays it anyway (talks, demos to others); ``--no-demo`` and
    ``PLAYTRACE_NO_DEMO=1`` always skip it. An explicit ``--demo`` wins over the environment variable.
    """
    if no_demo_flag:
        return False
    if force:
        return True
    env = os.environ.get(NO_DEMO_ENV, "").strip().lower()
    return env not in ("1", "true", "yes", "on") and not demo_done


class _ProblemRelay(QObject):
    """Carries a crash summary to the GUI thread (a worker thread must never touch widgets)."""

    problem = Signal(str)


def crash_callback(report_problem: Callable[[str], None], parent: QObject) -> Callable[[Path, str], None]:
    """A :class:`~desktop.crash.CrashReporter` callback that shows the problem through ``report_problem``.

    Exceptions from other threads are reported on those threads; the message is queued to the GUI
    thread (the relay lives there), so the status bar is only ever updated where Qt allows it.
    """
    relay = _ProblemRelay(parent)
    relay.problem.connect(report_problem)

    def on_crash(path: Path, summary: str) -> None:
        relay.problem.emit(f"Something went wrong: {summary} (report: {path})")

    return on_crash


def main(argv: Sequence[str] | None = None) -> int:
    """Open the main window and run until it is closed; returns the exit code."""
    from desktop.crash import CrashReporter, setup_logging
    from desktop.main_window import MainWindow

    args, _unknown = build_parser().parse_known_args(sys.argv[1:] if argv is None else list(argv))
    setup_logging()
    app = create_app()
    # Qt objects must die on the GUI thread: collect cycles on a GUI-thread timer, never in whichever
    # worker thread (session sync, asyncio.to_thread) Python's collector would otherwise pick.
    from pyqtgraph.util.garbage_collector import GarbageCollector

    collector = GarbageCollector(interval=1.0)
    # The window's close ends the main coroutine (which shuts the session down cleanly) rather than
    # Qt quitting the loop under asyncio's feet.
    app.setQuitOnLastWindowClosed(False)
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    # An unexpected error ends the action that raised it, never the app or the session being recorded.
    reporter = CrashReporter(crash_callback(window.report_problem, window))
    reporter.install()

    async def _main() -> None:
        asyncio.get_running_loop().set_exception_handler(reporter.handle_loop_exception)
        closed = asyncio.Event()
        window.sig_closed.connect(closed.set)
        if args.open is not None:
            window.open_session(args.open)
        elif want_demo(args.no_demo, force=args.demo, demo_done=window.demo_done()):
            window.start_demo()
        else:
            window.show_welcome()
        if args.presenter:
            window.presenter.enter()
        if os.environ.get(EXIT_WHEN_SHOWN_ENV, "").strip() == "1":
            # The loop runs: the window's show is handled; wait for it to be exposed (on screen).
            while (handle := window.windowHandle()) is not None and not handle.isExposed():
                await asyncio.sleep(0.005)
            await asyncio.sleep(0)  # and for its first paint
            print("playtrace: window shown", flush=True)
            window.close()
        await closed.wait()
        await window.controller.close()

    try:
        run(_main())
    except KeyboardInterrupt:
        return 130
    finally:
        collector.timer.stop()
        reporter.on_crash = None  # the window it reports to is about to go
        # Delete the window now, while automatic collection is still off, then collect once here: a
        # collection that starts inside a Qt destructor (while it disconnects a signal) can deadlock on
        # Qt's own lock when it deletes another Qt object.
        window.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()
        gc.enable()
    return 0


if __name__ == "__main__":
    sys.exit(main())
