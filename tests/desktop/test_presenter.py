"""Presenting: ``playtrace --demo``, window zoom, presenter mode (F5), replay playback with a rationale
caption, and exporting the session shown as an animation from the app — on sessions the engine recorded."""

from __future__ import annotations

import asyncio
import sys
import threading
import types
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QFileDialog

import sessions
from desktop import app as app_module
from desktop import cli, presenter
from desktop.controller import GameSetup, SeatSetup
from desktop.episode import start_episode
from desktop.settings import AppSettings
from engine import events as ev
from tests.desktop.conftest import until


def record(root: Path, seed: int = 3) -> Path:
    """A real tic-tac-toe game, the simulated model (X, with reasoning) against minimax."""
    episode = start_episode(
        "tictactoe",
        ["sim", "minimax"],
        root=root,
        seed=seed,
        model_options={"latency": 0, "thinking": True},
    )
    loop = asyncio.new_event_loop()  # not asyncio.run: that would unset the window's qasync loop
    try:
        loop.run_until_complete(episode.run())
    finally:
        loop.close()
    return episode.path


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    return record(tmp_path / "recorded")


@pytest.fixture(autouse=True)
def _normal_zoom(qapp: QApplication) -> Any:
    """Zoom is application-wide: every test starts and ends at 100 %."""
    yield
    from desktop.presenter import apply_zoom

    for widget in qapp.topLevelWidgets():
        apply_zoom(widget, 1.0)
        break


def open_replay(window: Any, run: Any, path: Path) -> Any:
    async def scenario() -> None:
        await window.open_session(path)
        await until(lambda: window.controller.mode == "replay", what="the replay")

    run(scenario())
    return window.controller


# -- playtrace --demo ----------------------------------------------------------------------------------


def test_playtrace_demo_is_a_valid_command_and_reaches_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    fake = types.ModuleType("desktop.app")
    fake.main = lambda argv=None: calls.append(list(argv or [])) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "desktop.app", fake)
    monkeypatch.setattr(sys.modules["desktop"], "app", fake, raising=False)
    assert cli.main(["--demo"]) == 0
    assert cli.main(["--demo", "--presenter"]) == 0
    assert calls == [["--demo"], ["--demo", "--presenter"]]
    assert cli.main(["--demo", "--no-demo"]) == 2  # contradictory: a usage error
    args, unknown = app_module.build_parser().parse_known_args(["--demo", "--presenter"])
    assert args.demo and args.presenter and not unknown


def test_playtrace_demo_plays_the_demo_even_after_own_games(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desktop.main_window as main_window

    settings = AppSettings()
    settings.demo_done = True  # without --demo, this launch would open on the welcome card
    settings.sync()
    seen: dict[str, Any] = {}
    original = main_window.MainWindow.start_demo

    def start_then_close(self: Any, **kwargs: Any) -> Any:
        task = original(self, **kwargs)

        def started(t: Any) -> None:
            seen["presenting"] = self.presenter.active
            seen["game"] = self.controller.game.id if self.controller.game else None
            self.close()

        task.add_done_callback(started)
        return task

    monkeypatch.setattr(main_window.MainWindow, "start_demo", start_then_close)
    monkeypatch.setattr(
        main_window,
        "demo_setup",
        lambda **kw: GameSetup(
            "tictactoe", [SeatSetup("sim", {"latency": 0}), SeatSetup("minimax")], seed=1, delay=0.05
        ),
    )
    assert app_module.main(["--demo", "--presenter"]) == 0
    assert seen == {"presenting": True, "game": "tictactoe"}


# -- zoom --------------------------------------------------------------------------------------------


def test_zoom_keys_scale_the_whole_window_and_are_remembered(window: Any, qtbot: Any, qapp: Any) -> None:
    base = qapp.font().pointSizeF()
    title = window.header.findChild(type(window.status_label), "HeaderTitle")
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.presenter.zoom == pytest.approx(1.25)
    assert qapp.font().pointSizeF() == pytest.approx(base * 1.25)
    assert window.status_label.font().pointSizeF() == pytest.approx(base * 1.25)
    assert "16.25pt" in qapp.styleSheet()  # the header title's 13pt, zoomed with the rest
    if title is not None:
        assert title.fontInfo().pointSizeF() > base * 1.25
    assert AppSettings().zoom == pytest.approx(1.25)

    qtbot.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.presenter.zoom == pytest.approx(1.1)
    qtbot.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert window.presenter.zoom == pytest.approx(1.0)
    assert qapp.font().pointSizeF() == pytest.approx(base)
    assert AppSettings().zoom == pytest.approx(1.0)


def test_the_saved_zoom_is_applied_at_the_next_launch(qapp: Any, qtbot: Any, tmp_path: Path) -> None:
    from desktop.controller import SessionController
    from desktop.main_window import MainWindow

    base = qapp.font().pointSizeF()
    settings = AppSettings()
    settings.zoom = 1.5
    settings.sync()
    win = MainWindow(SessionController(root=tmp_path / "sessions"))
    qtbot.addWidget(win)
    assert win.presenter.zoom == pytest.approx(1.5)
    assert qapp.font().pointSizeF() == pytest.approx(base * 1.5)


# -- presenter mode ------------------------------------------------------------------------------------


def _dark_share(image: Any) -> float:
    """The share of sampled pixels that are the presenter's near-black ground."""
    dark = total = 0
    for y in range(0, image.height(), 24):
        for x in range(0, image.width(), 24):
            total += 1
            dark += QColor(image.pixel(x, y)).lightness() < 40
    return dark / total


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_f5_shows_the_board_and_the_reasoning_in_large_type(
    window: Any, run: Any, qtbot: Any, recorded: Path, size: tuple[int, int]
) -> None:
    c = open_replay(window, run, recorded)
    session = sessions.load_session(recorded)
    model_step = next(
        k
        for k in range(session.num_steps)
        if any(e["type"] == ev.REASONING for e in session.events_for_step(k))
    )
    c.scrub(c.base + model_step)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    p = window.presenter
    assert p.active and p.view.isVisible() and p.view.hasFocus()
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    assert not window.centralWidget().isVisible()
    window.showNormal()  # the offscreen screen is smaller than a projector: size the window by hand
    window.resize(*size)
    qtbot.waitUntil(lambda: p.view.size().width() == size[0] and p.view.size().height() == size[1])
    view = presenter.step_view(c)
    assert view is not None and view.reasoning and "“" in view.caption
    image = p.view.grab().toImage()
    assert image.width() == size[0] and _dark_share(image) > 0.4  # high contrast: light on dark
    # Type sized from the height: the caption's letters are at least 1/25 of the screen high.
    assert presenter._font(size[1] / 19).pixelSize() >= size[1] / 25
    qtbot.keyClick(p.view, Qt.Key.Key_Escape)
    assert not p.active and not p.view.isVisible()
    assert window.menuBar().isVisible() and window.centralWidget().isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert p.active
    qtbot.keyClick(p.view, Qt.Key.Key_Space)  # the replay plays for the audience ...
    assert p.player.playing
    qtbot.keyClick(p.view, Qt.Key.Key_F5)
    assert not p.active and not p.player.playing  # ... and stops with presenter mode


# -- replay playback and caption --------------------------------------------------------------------


def test_space_plays_a_replay_to_its_end_and_the_caption_follows(
    window: Any, run: Any, qtbot: Any, recorded: Path
) -> None:
    c = open_replay(window, run, recorded)
    p = window.presenter
    session = sessions.load_session(recorded)
    c.scrub(c.base)
    p.player.set_speed_index(len(presenter.SPEEDS) - 1)  # Max
    p.refresh()
    assert p.actions["play"].isEnabled() and not window.acts.run.isEnabled()
    qtbot.keyClick(window.board, Qt.Key.Key_Space)  # the board has the focus in a replay
    assert p.player.playing
    seen: set[int] = set()
    c.sig_view_changed.connect(lambda: seen.add(c.view_step))
    run(until(lambda: not p.player.playing, what="the replay to play to its end"))
    assert c.view_step == c.head and seen == set(range(c.base + 1, c.head + 1))
    p.refresh()
    assert p.caption.text().startswith("Final position")

    # Step keys, and the caption of each step is that decision's rationale, from the recorded events.
    c.scrub(c.base)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    qtbot.keyClick(window, Qt.Key.Key_Left)
    assert c.view_step == c.base + 1
    p.refresh()
    decision = next(e for e in session.events_for_step(1) if e["type"] == ev.DECISION)
    rationale = decision["data"]["rationale"]
    assert rationale and rationale.split(". ")[0] in p.caption.text()
    assert p.caption.isVisible()

    # Speed keys move through the timeline's speeds.
    p.player.set_speed_index(2)
    qtbot.keyClick(window, Qt.Key.Key_Greater, Qt.KeyboardModifier.ShiftModifier)
    assert p.player.speed_index == 3
    qtbot.keyClick(window, Qt.Key.Key_Less, Qt.KeyboardModifier.ShiftModifier)
    assert p.player.speed_index == 2


def test_space_in_presenter_mode_pauses_and_runs_a_live_game(window: Any, run: Any, qtbot: Any) -> None:
    c = window.controller
    setup = GameSetup(
        "tictactoe", [SeatSetup("sim", {"latency": 0}), SeatSetup("minimax")], seed=2, delay=0.5
    )

    async def scenario() -> None:
        await window.start_game(setup)
        await until(lambda: c.live and c.running, what="the live game")

    run(scenario())
    window.presenter.enter(full_screen=False)
    qtbot.keyClick(window.presenter.view, Qt.Key.Key_Space)
    assert not c.running
    qtbot.keyClick(window.presenter.view, Qt.Key.Key_Space)
    assert c.running
    window.presenter.leave()


# -- export from the app ---------------------------------------------------------------------------------


def test_export_animation_from_the_app_runs_in_a_worker_with_a_progress_bar(
    window: Any, run: Any, recorded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import imageio.v3 as iio

    from desktop import video_export

    c = open_replay(window, run, recorded)
    dest = tmp_path / "out" / "talk.gif"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(dest), "Animated GIF (*.gif)"))
    threads: list[str] = []
    original = video_export.export_video

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(video_export, "export_video", spy)
    p = window.presenter
    progress: list[tuple[int, int]] = []
    bar_shown: list[bool] = []
    p._relay.progress.connect(lambda done, total: progress.append((done, total)))
    p._relay.progress.connect(lambda *_: bar_shown.append(p.progress.isVisible()))

    async def scenario() -> None:
        await until(lambda: p.actions["export_video"].isEnabled(), what="the export action")
        p.actions["export_video"].trigger()  # as the menu does, while the app's loop runs
        assert p.exporting is not None and not p.actions["export_video"].isEnabled()
        await until(lambda: p.exporting is None and progress, what="the export")

    run(scenario())
    assert threads and threads[0] != threading.main_thread().name
    frames = c.head - c.base + 1
    assert progress[-1] == (frames, frames) and len(progress) == frames
    assert bar_shown and all(bar_shown) and not p.progress.isVisible()
    assert iio.imread(dest, index=None).shape[0] == frames
    assert window.last_error is None


def test_zoom_keeps_the_window_and_the_board_and_ctrl_0_restores_them(
    window: Any, qtbot: Any, run: Any
) -> None:
    from desktop.controller import GameSetup, SeatSetup

    window.resize(1280, 800)
    run(window.start_game(GameSetup("tictactoe", [SeatSetup("human"), SeatSetup("minimax")], seed=1)))
    qtbot.waitUntil(lambda: window.board.state is not None)
    before = (window.size(), window.board.board_rect().size(), window.left_split.sizes())
    for _ in range(3):
        qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.presenter.zoom == pytest.approx(1.5)
    # Larger type: the window does not widen itself and the board is not smaller.
    assert window.size() == before[0]
    assert window.board.board_rect().height() >= before[1].height()
    qtbot.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert window.size() == before[0]
    # Back to the board and columns of normal type (a style sheet may round a pixel or two).
    assert abs(window.board.board_rect().height() - before[1].height()) <= 4
    assert all(abs(a - b) <= 4 for a, b in zip(window.left_split.sizes(), before[2], strict=True))


def test_the_replay_bar_plays_and_pauses_and_shows_its_speed(window: Any, run: Any, recorded: Path) -> None:
    c = open_replay(window, run, recorded)
    bar, player = window.timeline, window.presenter.player
    window.refresh()
    assert bar.play_btn.isVisible() and not bar.run_btn.isVisible()
    assert bar.speed.isVisible() and bar.speed.currentText() == presenter.SPEEDS[player.speed_index][0]
    bar.speed.setCurrentIndex(len(presenter.SPEEDS) - 1)  # the box sets the playback's speed
    assert player.speed_index == len(presenter.SPEEDS) - 1
    c.scrub(c.base)
    bar.play_btn.click()
    assert player.playing and bar.play_btn.text() == "❚❚ Pause"
    bar.play_btn.click()
    assert not player.playing and bar.play_btn.text() == "▶ Play"


def test_the_welcome_state_shows_no_empty_plot_and_no_final_position(window: Any) -> None:
    window.show_welcome()
    window.refresh()
    assert not window.plot.isVisible()
    assert window.timeline.step_label.text() == "No game open"


def test_the_live_presenter_shows_a_models_reasoning_as_it_streams(window: Any, run: Any) -> None:
    from tests.desktop.conftest import paused_at_model, sim_setup

    c = window.controller
    p = window.presenter
    seen: list[str] = []

    async def scenario() -> None:
        await paused_at_model(window, sim_setup(latency=0.05, thinking=True))
        p.enter(full_screen=False)
        c.ask()
        await until(lambda: c.busy and bool(p.streaming), what="reasoning streaming in")
        view = presenter.step_view(c, p.streaming)
        assert view is not None
        seen.append(view.reasoning)
        await until(lambda: c.pending is not None, what="the decision held")
        p.leave()

    run(scenario())
    assert seen and seen[0]  # the presenter had the reasoning before the move was made
