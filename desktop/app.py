"""The PlayTrace desktop application: ``playtrace`` with no arguments (or ``python -m desktop``).

Qt and asyncio share the GUI thread through qasync: model calls, the match loop and session loading
are coroutines on the Qt event loop, so the window never blocks and no locks are needed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop import theme  # noqa: E402

#: Set to 1 to skip the first-launch demo (the simulated model playing).
NO_DEMO_ENV = "PLAYTRACE_NO_DEMO"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playtrace", description="PlayTrace desktop app")
    parser.add_argument("--no-demo", action="store_true", help="do not start the simulated-model demo")
    parser.add_argument("--open", metavar="SESSION", type=Path, help="open a saved session for replay")
    return parser


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


def want_demo(no_demo_flag: bool) -> bool:
    """Whether to start the demo: not with ``--no-demo`` nor ``PLAYTRACE_NO_DEMO=1``."""
    env = os.environ.get(NO_DEMO_ENV, "").strip().lower()
    return not no_demo_flag and env not in ("1", "true", "yes", "on")


def main(argv: Sequence[str] | None = None) -> int:
    """Open the main window and run until it is closed; returns the exit code."""
    import qasync

    from desktop.main_window import MainWindow

    args, _unknown = build_parser().parse_known_args(sys.argv[1:] if argv is None else list(argv))
    app = create_app()
    # The window's close ends the main coroutine (which shuts the session down cleanly) rather than
    # Qt quitting the loop under asyncio's feet.
    app.setQuitOnLastWindowClosed(False)
    window = MainWindow()
    window.resize(1280, 800)
    window.show()

    async def run() -> None:
        closed = asyncio.Event()
        window.sig_closed.connect(closed.set)
        if args.open is not None:
            window.open_session(args.open)
        elif want_demo(args.no_demo):
            window.start_demo()
        await closed.wait()
        await window.controller.close()

    try:
        qasync.run(run())
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
