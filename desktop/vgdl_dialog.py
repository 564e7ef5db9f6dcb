"""File → Open VGDL game…: choose a VGDL game file and a level file, read the rules, and play.

The dialog checks the files as soon as they are chosen, through the engine (``engine.make("vgdl",
game_file=..., level_file=...)``): a game PlayTrace cannot run shows the error with its file and line
(an unsupported class or effect is named), and a playable one shows the rules in plain words, the same
text a model is given. Play starts the game with the chosen player (a person by default), in turns or
in real time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

import engine
from desktop.session_model import GameSetup, SeatSetup

__all__ = ["VgdlDialog", "open_vgdl_game"]

GAME_ID = "vgdl"
_FILTER = "VGDL files (*.txt *.vgdl);;All files (*)"


class VgdlDialog(QDialog):
    """Pick the files and the player; :meth:`setup` is the game to start."""

    checked = Signal(bool)

    def __init__(self, parent: QWidget | None = None, *, folder: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Open VGDL game")
        self.setMinimumSize(640, 560)
        self._folder = folder
        self.game_edit = QLineEdit()
        self.game_edit.setObjectName("vgdl_game_file")
        self.game_edit.setPlaceholderText("the game's .txt file (GVGAI's VGDL)")
        self.level_edit = QLineEdit()
        self.level_edit.setObjectName("vgdl_level_file")
        self.level_edit.setPlaceholderText("the level file (default: <game>_lvl0.txt beside it)")
        game_row, self.game_browse = self._file_row(self.game_edit, "Choose the VGDL game file")
        level_row, self.level_browse = self._file_row(self.level_edit, "Choose the level file")
        self.player = QComboBox()
        self.player.addItem("Human (you)", "human")
        self.player.addItem("Random", "random")
        cls = engine.declaration(GAME_ID)
        for bot in cls.bots:
            self.player.addItem(f"Bot: {bot}", bot)
        self.player.addItem("Simulated model (offline)", "sim")
        self.realtime = QCheckBox("Real time (the game goes on when you wait)")
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 100_000)
        self.max_steps.setValue(int(next(o.default for o in cls.options_schema if o.name == "max_steps")))
        form = QFormLayout()
        form.addRow("Game file", game_row)
        form.addRow("Level file", level_row)
        form.addRow("Player", self.player)
        form.addRow("Step cap", self.max_steps)
        form.addRow("", self.realtime)
        self.status = QLabel("Choose a game file.")
        self.status.setObjectName("vgdl_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rules = QPlainTextEdit()
        self.rules.setObjectName("vgdl_rules")
        self.rules.setReadOnly(True)
        mono = QFont("DejaVu Sans Mono")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.rules.setFont(mono)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.play_button = self.buttons.addButton("Play", QDialogButtonBox.ButtonRole.AcceptRole)
        self.play_button.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(QLabel("Rules (as a model reads them):"))
        layout.addWidget(self.rules, 1)
        layout.addWidget(self.buttons)
        self.game_edit.editingFinished.connect(self.check)
        self.level_edit.editingFinished.connect(self.check)
        self.game_browse.clicked.connect(lambda: self._browse(self.game_edit, "Choose the VGDL game file"))
        self.level_browse.clicked.connect(lambda: self._browse(self.level_edit, "Choose the level file"))

    def _file_row(self, edit: QLineEdit, title: str) -> tuple[QWidget, QPushButton]:
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(edit, 1)
        button = QPushButton("Browse…")
        button.setToolTip(title)
        box.addWidget(button)
        return row, button

    def _browse(self, edit: QLineEdit, title: str) -> None:
        start = edit.text() or self._folder
        path, _ = QFileDialog.getOpenFileName(self, title, start, _FILTER)
        if path:
            edit.setText(path)
            self._folder = str(Path(path).parent)
            self.check()

    def set_files(self, game_file: str, level_file: str = "") -> bool:
        """Fill in the files and check them (what Browse… does); whether they can be played."""
        self.game_edit.setText(game_file)
        self.level_edit.setText(level_file)
        return self.check()

    def options(self) -> dict[str, Any]:
        """The ``vgdl`` game's options as chosen."""
        options: dict[str, Any] = {
            "game_file": self.game_edit.text().strip(),
            "max_steps": self.max_steps.value(),
            "realtime": self.realtime.isChecked(),
        }
        if self.level_edit.text().strip():
            options["level_file"] = self.level_edit.text().strip()
        return options

    def check(self) -> bool:
        """Load the chosen files; show the rules or the error; enable Play when they can be played."""
        ok = False
        if not self.game_edit.text().strip():
            self.status.setText("Choose a game file.")
            self.rules.setPlainText("")
        else:
            try:
                game = engine.make(GAME_ID, **self.options())
                game.initial_state(seed=0)
            except Exception as exc:  # noqa: BLE001  (every problem with the files is the user's to fix)
                self.status.setText(f"Cannot play these files: {exc}")
                self.rules.setPlainText("")
            else:
                self.status.setText(f"Ready: {len(game.actions)} actions ({', '.join(game.actions)}).")
                self.rules.setPlainText(game.rules_text())
                ok = True
        self.play_button.setEnabled(ok)
        self.checked.emit(ok)
        return ok

    def setup(self) -> GameSetup:
        """The game to start: the ``vgdl`` game with the chosen files, player and step cap."""
        return GameSetup(
            game_id=GAME_ID,
            seats=[SeatSetup(str(self.player.currentData()))],
            seed=GameSetup.random_seed(),
            options=self.options(),
            title=f"VGDL: {Path(self.game_edit.text().strip()).stem}",
        )


def open_vgdl_game(window: Any) -> VgdlDialog:
    """Show the dialog over ``window``; Play starts the game there."""
    dialog = VgdlDialog(window)
    dialog.accepted.connect(lambda: window.start_from_dialog(dialog.setup()))
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog
