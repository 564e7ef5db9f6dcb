"""The launch demo plays until the person starts a game of their own; later launches open on a welcome
card; ``--demo`` forces it, ``--no-demo`` / ``PLAYTRACE_NO_DEMO`` skip it; Help > Play the demo always."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import pytest
from PySide6.QtCore import Qt

import desktop.app as app_module
from desktop.controller import GameSetup, SeatSetup
from desktop.settings import AppSettings, settings_path
from tests.desktop.conftest import until


def _fast_demo(**_kw: Any) -> GameSetup:
    return GameSetup(
        "tictactoe", [SeatSetup("sim", {"latency": 0.002}), SeatSetup("minimax")], seed=1, delay=0.05
    )


def test_demo_done_setting_round_trips_in_the_test_home() -> None:
    settings = AppSettings()
    assert settings.demo_done is False
    settings.demo_done = True
    settings.sync()
    assert AppSettings().demo_done is True
    assert "demo_done" in settings_path().read_text(encoding="utf-8")


def test_want_demo_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(app_module.NO_DEMO_ENV, raising=False)
    assert app_module.want_demo(False)
    assert not app_module.want_demo(False, demo_done=True)
    assert app_module.want_demo(False, force=True, demo_done=True)
    assert not app_module.want_demo(True, demo_done=False)
    monkeypatch.setenv(app_module.NO_DEMO_ENV, "1")
    assert not app_module.want_demo(False)
    assert app_module.want_demo(False, force=True)  # an explicit --demo wins over the environment
    args, _ = app_module.build_parser().parse_known_args(["--demo"])
    assert args.demo and not args.no_demo


def test_idle_window_shows_the_welcome_card(window: Any, qtbot: Any, run: Any) -> None:
    window.show_welcome()
    assert window.game_stack.currentWidget() is window.welcome
    assert window.welcome.isVisible()
    texts = [
        b.text() for b in (window.welcome.new_button, window.welcome.open_button, window.welcome.demo_button)
    ]
    assert texts == ["New game (Ctrl+N)", "Open session (Ctrl+O)", "Play the demo"]
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert "Play the demo" in [a.text() for a in help_menu.actions()]
    window.refresh()
    assert not window.inspector.fork_button.isEnabled()  # nothing to fork from yet

    async def scenario() -> None:
        qtbot.mouseClick(window.welcome.demo_button, Qt.MouseButton.LeftButton)
        await until(lambda: window.controller.game is not None, what="the demo to start")

    import desktop.main_window as main_window

    original = main_window.demo_setup
    main_window.demo_setup = _fast_demo  # type: ignore[assignment]
    try:
        run(scenario())
    finally:
        main_window.demo_setup = original  # type: ignore[assignment]
    window.refresh()
    assert window.demo_active
    assert window.game_stack.currentWidget() is not window.welcome
    # Watching the demo is not playing a game of one's own.
    assert AppSettings().demo_done is False


def test_starting_from_the_new_game_dialog_marks_the_demo_done(window: Any, run: Any) -> None:
    assert not window.demo_done()
    window.new_game()
    dialog = window._dialogs[-1]
    dialog.game.setCurrentIndex(dialog.game.findData("2048"))
    dialog.seat_editors[0].set_choice("random")
    dialog.max_steps.setValue(2)

    async def scenario() -> None:
        dialog.accept()
        await until(lambda: window.controller.game is not None, what="the game to start")

    run(scenario())
    assert window.demo_done()
    assert AppSettings().demo_done is True


def test_opening_a_session_marks_the_demo_done(window: Any, run: Any) -> None:
    async def scenario() -> None:
        await window.controller.start(GameSetup("2048", [SeatSetup("random")], seed=3, max_steps=2, delay=0))
        await until(lambda: window.controller.finished_status is not None, what="the game to end")
        assert AppSettings().demo_done is False  # a game started by code (the demo, tests) does not count
        await window.open_session(window.controller.folder)

    run(scenario())
    assert AppSettings().demo_done is True


def _run_main(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> Any:
    from PySide6.QtCore import QTimer

    import desktop.main_window as main_window

    shown: list[Any] = []
    original = main_window.MainWindow.show

    def show_then_close(self: Any) -> None:
        original(self)

        def look_then_close() -> None:  # the window is deleted when main() returns: look before
            shown.append({"demo_active": self.demo_active,
                          "welcome": self.game_stack.currentWidget() is self.welcome})
            self.close()

        QTimer.singleShot(400, look_then_close)

    monkeypatch.setattr(main_window.MainWindow, "show", show_then_close)
    monkeypatch.setattr(main_window, "demo_setup", _fast_demo)
    monkeypatch.delenv(app_module.NO_DEMO_ENV, raising=False)
    # main() installs the crash reporter and the log file: put both back afterwards.
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    handlers = list(logging.getLogger().handlers)
    try:
        assert app_module.main(argv) == 0
    finally:
        for handler in [h for h in logging.getLogger().handlers if h not in handlers]:
            logging.getLogger().removeHandler(handler)
            handler.close()
    return shown[0]


def test_later_launch_opens_idle_and_demo_flag_forces_the_demo(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sessions

    settings = AppSettings()
    settings.demo_done = True
    settings.sync()
    window = _run_main(monkeypatch, [])
    assert not window["demo_active"] and window["welcome"]
    assert sessions.Catalogue(sessions.default_root()).list() == []

    window = _run_main(monkeypatch, ["--demo"])
    rows = sessions.Catalogue(sessions.default_root()).list()
    assert len(rows) == 1 and rows[0].game == "tictactoe"
