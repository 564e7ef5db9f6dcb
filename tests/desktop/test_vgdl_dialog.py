"""File → Open VGDL game…: the dialog checks the files, shows the rules or the error, and starts the
``vgdl`` game with the chosen files and player."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QWidget

import assets
import sessions
from desktop import vgdl_dialog
from desktop.controller import GameSetup, SeatSetup
from desktop.vgdl_dialog import VgdlDialog
from tests.desktop.conftest import until


def crates() -> tuple[str, str]:
    return str(assets.path("vgdl", "crates.txt")), str(assets.path("vgdl", "crates_lvl2.txt"))


def test_a_playable_game_shows_its_rules_and_enables_play(qtbot: Any) -> None:
    dialog = VgdlDialog()
    qtbot.addWidget(dialog)
    assert not dialog.play_button.isEnabled()
    game_file, level_file = crates()
    assert dialog.set_files(game_file, level_file)
    assert dialog.play_button.isEnabled()
    assert "=== Game Rules ===" in dialog.rules.toPlainText() and "crate" in dialog.rules.toPlainText()
    assert "ACTION_NIL" in dialog.status.text()
    setup = dialog.setup()
    assert setup.game_id == "vgdl" and setup.seats[0].spec == "human"
    assert setup.options["game_file"] == game_file and setup.options["level_file"] == level_file


def test_a_broken_or_unsupported_game_shows_the_error_with_its_line(qtbot: Any, tmp_path: Path) -> None:
    dialog = VgdlDialog()
    qtbot.addWidget(dialog)
    game_file = tmp_path / "mine.txt"
    game_file.write_text(Path(crates()[0]).read_text().replace("Passive", "PathChaser"))
    (tmp_path / "mine_lvl0.txt").write_text(Path(crates()[1]).read_text())
    assert not dialog.set_files(str(game_file))
    assert "PathChaser" in dialog.status.text() and "mine.txt, line" in dialog.status.text()
    assert not dialog.play_button.isEnabled() and dialog.rules.toPlainText() == ""
    assert not dialog.set_files(str(tmp_path / "missing.txt"))
    assert "does not exist" in dialog.status.text()


def test_play_starts_the_game_in_the_window(qtbot: Any) -> None:
    started: list[Any] = []

    class Window(QWidget):
        def start_from_dialog(self, setup: Any) -> None:
            started.append(setup)

    window = Window()
    qtbot.addWidget(window)  # the dialog is the window's child and goes with it
    dialog = vgdl_dialog.open_vgdl_game(window)
    dialog.player.setCurrentIndex(dialog.player.findData("random"))
    dialog.realtime.setChecked(True)
    assert dialog.set_files(*crates())
    assert dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel) is not None
    dialog.play_button.click()
    qtbot.waitUntil(lambda: bool(started))
    assert started[0].seats[0].spec == "random" and started[0].options["realtime"] is True


def test_a_person_plays_a_vgdl_game_with_arrows_and_space(window: Any, qtbot: Any, run: Any) -> None:
    c = window.controller

    async def scenario() -> None:
        window.start_game(GameSetup("vgdl-barrage", [SeatSetup("human")], seed=5))
        for key in (Qt.Key.Key_Left, Qt.Key.Key_Space):
            await until(
                lambda: c.waiting_human() is not None and window.board.interactive, what="board ready"
            )
            before = c.count
            qtbot.keyClick(window.board, key)
            await until(lambda before=before: c.count == before + 1, what="the key's action applied")

    run(scenario())
    session = sessions.load_session(c.folder)
    assert [e["data"]["actions"]["0"] for e in session.steps] == ["ACTION_LEFT", "ACTION_USE"]
    assert session.state_at(2).legend  # a replayed state still has its map and legend
