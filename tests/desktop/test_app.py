"""The app shell: first-launch demo, dialogs, theme, header and the F1 overlay."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from desktop import app as app_module
from desktop.controller import GameSetup, SeatSetup
from desktop.new_game_dialog import NewGameDialog
from tests.desktop.conftest import until


def test_demo_fills_every_model_pane(window: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_demo(latency=0, delay=0)
        await until(lambda: c.count >= 3, what="the demo to play")

    run(scenario())
    types = {r["type"] for r in c.all_records()}
    for needed in ("prompt_built", "reasoning", "answer", "action_parsed", "memory", "reflection",
                   "verification", "model_call_finished"):
        assert needed in types, needed
    assert window.demo_banner.isVisible()
    assert window.demo_banner.buttons["add_model"].text() == "Add a real model…"
    info = c.header_info()
    assert info["simulated"] is True
    assert any(p["badge"] == "sim" for p in info["players"])
    # The vision path: the prompt carries the board image as an attachment the panel can resolve.
    prompt = next(r for r in c.all_records() if r["type"] == "prompt_built")
    refs = [v for v in prompt["data"].values() if isinstance(v, str) and v.startswith("attachment://")]
    refs += [x for v in prompt["data"].values() if isinstance(v, list) for x in v
             if isinstance(x, str) and x.startswith("attachment://")]
    assert refs and c.resolve(refs[0]).startswith(b"\x89PNG")


def test_demo_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(app_module.NO_DEMO_ENV, raising=False)
    assert app_module.want_demo(False)
    assert not app_module.want_demo(True)
    monkeypatch.setenv(app_module.NO_DEMO_ENV, "1")
    assert not app_module.want_demo(False)
    args, _ = app_module.build_parser().parse_known_args(["--no-demo"])
    assert args.no_demo


def test_new_game_dialog_builds_setups(qtbot: Any) -> None:
    dialog = NewGameDialog()
    qtbot.addWidget(dialog)
    dialog.game.setCurrentIndex(dialog.game.findData("tictactoe"))
    assert len(dialog.seat_editors) == 2
    seat0, seat1 = dialog.seat_editors
    # Seats are numbered from 1 for people, as everywhere in the window.
    assert (seat0.title(), seat1.title()) == ("Seat 1 (X)", "Seat 2 (O)")
    seat0.player.setCurrentIndex(seat0.player.findData("sim"))
    seat0.memory.setValue(4)
    seat0.reflection.setChecked(False)
    seat0.thinking.setChecked(True)
    seat0.budget.setValue(2048)
    seat1.player.setCurrentIndex(seat1.player.findData("model…"))
    seat1.provider.setCurrentIndex(seat1.provider.findData("local"))
    seat1.model_name.setText("qwen")
    seat1.base_url.setText("http://127.0.0.1:8000/v1")
    dialog.seed.setValue(42)
    dialog.max_steps.setValue(30)
    received: list[GameSetup] = []
    dialog.sig_start_requested.connect(received.append)
    dialog.accept()
    setup = received[0]
    assert setup.game_id == "tictactoe" and setup.seed == 42 and setup.max_steps == 30
    assert setup.seats[0].spec == "sim"
    assert setup.seats[0].options["memory"] == 4 and setup.seats[0].options["reflection"] is False
    assert setup.seats[0].options["thinking_budget"] == 2048
    assert setup.seats[1].spec == "local:qwen@http://127.0.0.1:8000/v1"
    policy = setup.seats[1].options["invalid_policy"]
    assert policy == {"reask": "feedback", "retries": 3, "fallback": "random"}
    assert setup.seats[1].options["action_format"] == "text"
    # Model settings show only for model seats.
    dialog.game.setCurrentIndex(dialog.game.findData("2048"))
    assert len(dialog.seat_editors) == 1
    assert dialog.seat_editors[0].harness_box.isHidden()


def test_header_shows_players_and_the_f1_overlay(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("minimax")], seed=2))
        await until(lambda: c.waiting_human() is not None)

    run(scenario())
    window.refresh()
    assert window.header.title.text() == "Tic-tac-toe"
    assert window.header.seed.text().startswith("seed 2")
    # One seat numbering everywhere: 1-based in the header, the plot legend and the model panel.
    header_texts = [label.text() for label in window.header.findChildren(QLabel)]
    assert "Seat 1 (X):" in header_texts and "Seat 2 (O):" in header_texts
    legend = window.plot.title.text()
    assert "Seat 1 (X) · You" in legend and "Seat 2 (O) · Minimax" in legend
    assert "Seat 1 (X)" in window.inspector.players_label.text()
    assert not any("Seat 0" in text for text in (*header_texts, legend))
    assert "Waiting for X (you)" in window.status_label.text()
    assert "1–9" in window.status_label.text()
    assert not window.overlay.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert window.overlay.isVisible()
    qtbot.keyClick(window.overlay, Qt.Key.Key_Escape)
    assert not window.overlay.isVisible()


def test_help_lists_every_game_from_its_declaration(window: Any, qtbot: Any) -> None:
    import engine
    from desktop.help_dialog import ShortcutOverlay, game_help, keys_summary
    from engine.registry import GameEntry

    window.overlay.toggle()
    texts = {label.text() for label in window.overlay.findChildren(QLabel)}
    for game_id in engine.list_games():
        cls = engine.declaration(game_id)
        assert cls.title in texts and cls.controls in texts
        if cls.keymap:  # a game played with the mouse and panels only has no keys to list
            assert keys_summary(cls.keymap) in texts
    # The card fits in the window.
    assert window.overlay.rect().contains(window.overlay.card.geometry())
    window.overlay.toggle()
    arrows_and_letters = {"up": "u", "down": "d", "left": "l", "right": "r", "w": "u", "a": "l"}
    assert keys_summary(arrows_and_letters) == "Arrows · W A"
    assert keys_summary({str(i): f"c{i}" for i in range(1, 10)}) == "1–9"
    assert keys_summary({"1": "a", "2": "b", "space": "noop"}) == "1 2 · Space"

    missing = GameEntry("mario", "engine.games.mario:Mario", "playtrace", None,
                        "needs nes_py, which is not installed", "pip install 'playtrace[mario]'")
    rows = game_help([missing, *engine.entries()])
    assert [r.title for r in rows[:-1]] == [e.title for e in engine.entries() if e.available]
    assert not rows[-1].available and "nes_py" in rows[-1].how
    assert rows[-1].install == "pip install 'playtrace[mario]'"
    overlay = ShortcutOverlay(window.centralWidget(), rows)
    overlay.toggle()
    assert any("pip install" in label.text() for label in overlay.findChildren(QLabel))
    overlay.hide()


def test_window_keeps_its_layout_at_1280x800(window: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("2048", [SeatSetup("human")], seed=1))
        await until(lambda: c.waiting_human() is not None)

    run(scenario())
    window.refresh()
    image = window.grab().toImage()
    assert (image.width(), image.height()) == (1280, 800)
    # The board never collapses beside the panel and the plot.
    assert window.board.width() >= 300 and window.board.height() >= 300
    assert window.plot.height() >= 100
    assert window.inspector.width() >= 380


def test_errors_in_the_match_reach_the_status_bar(
    window: Any, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.players import RandomPlayer

    async def broken(self: Any, observation: Any) -> Any:
        raise RuntimeError("bot exploded")

    monkeypatch.setattr(RandomPlayer, "act", broken)
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("2048", [SeatSetup("random")], seed=1, delay=0))
        await until(lambda: c.finished_status is not None, what="the failure")

    run(scenario())
    assert c.finished_status == "error"
    assert "bot exploded" in (window.last_error or "")
    import sessions

    assert sessions.load_session(c.folder).manifest["status"] == "error"


def test_main_runs_the_demo_and_closes_cleanly(qapp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtCore import QTimer

    import desktop.main_window as main_window
    import sessions

    shown: list[Any] = []
    original = main_window.MainWindow.show

    def show_then_close(self: Any) -> None:
        original(self)
        shown.append(self.size().width())  # the window itself is deleted when main() returns
        QTimer.singleShot(1200, self.close)

    monkeypatch.setattr(main_window.MainWindow, "show", show_then_close)
    monkeypatch.setattr(main_window, "demo_setup", lambda **kw: _fast_demo())
    monkeypatch.delenv(app_module.NO_DEMO_ENV, raising=False)
    assert app_module.main([]) == 0
    assert shown == [1280]
    rows = sessions.Catalogue(sessions.default_root()).list()
    assert len(rows) == 1 and rows[0].game == "tictactoe"
    assert rows[0].status in ("aborted", "completed")


def _fast_demo() -> GameSetup:
    seats = [SeatSetup("sim", {"latency": 0.002}), SeatSetup("minimax")]
    return GameSetup("tictactoe", seats, seed=1, delay=0.05)


def test_add_a_real_model_opens_the_keys_dialog(window: Any, qtbot: Any) -> None:
    window.show_demo_banner()
    qtbot.mouseClick(window.demo_banner.buttons["add_model"], Qt.MouseButton.LeftButton)
    from desktop.keys_dialog import ModelsKeysDialog

    dialogs = [d for d in window._dialogs if isinstance(d, ModelsKeysDialog)]
    assert len(dialogs) == 1 and dialogs[0].isVisible()
    dialogs[0].reject()


def test_many_signal_emits_do_not_exhaust_the_bool_singletons() -> None:
    import sys

    from PySide6.QtCore import QObject, Signal

    class Emitter(QObject):
        sig = Signal(int)

    emitter = Emitter()
    received: list[int] = []
    emitter.sig.connect(received.append)
    before = sys.getrefcount(True)
    for i in range(5000):  # PySide6 6.12.0 dropped a reference to True per emit (hence the pin)
        emitter.sig.emit(i)
    assert len(received) == 5000
    assert sys.getrefcount(True) >= before


def test_demo_restart_is_cancelled_when_the_window_closes(window: Any) -> None:
    # A finished demo game schedules the next one; closing the window must not leave it pending
    # (it would start a match on a closed window, outside any event loop).
    window.demo_active = True
    window._on_finished("completed")
    assert window._demo_restart_timer.isActive()
    window.close()
    assert not window._demo_restart_timer.isActive()


def test_every_key_the_window_binds_is_in_the_f1_help_which_fits_1280_and_closes_on_esc(
    window: Any, qtbot: Any
) -> None:
    from PySide6.QtGui import QAction, QKeySequence

    window.resize(1280, 800)
    window.acts.keys.trigger()  # as the toolbar button does
    overlay = window.overlay
    assert overlay.isVisible()
    texts = " ".join(label.text() for label in overlay.findChildren(QLabel))
    # The keys a new user missed, and every shortcut bound by a window action (one declaration).
    for key in ("F5", "Ctrl+=", "Ctrl+0", "Ctrl+L", "Ctrl+D", "Ctrl+Enter", "F1"):
        assert key in texts, key
    bound = {
        a.shortcut().toString(QKeySequence.SequenceFormat.PortableText)
        for a in window.findChildren(QAction) if not a.shortcut().isEmpty()
    }
    assert bound and all(k in texts or k in ("[", "]") for k in bound), bound - set(texts.split())
    # The card fits a 1280 × 800 window; the lists scroll inside it.
    assert overlay.rect().contains(overlay.card.geometry())
    assert overlay.card.width() <= window.width() - 40
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert not overlay.isVisible()
