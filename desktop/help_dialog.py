"""Help: the F1 overlay (the app's shortcuts and how each game is played) and the About box.

The game rows come from the games' declarations (:attr:`engine.core.Game.controls` and
:attr:`~engine.core.Game.keymap`) as :func:`engine.entries` lists them, so a game added as a plug-in
appears here with no change to the app, and a game that cannot be played here is listed with the
reason and the command that installs what it needs.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Iterable, Mapping, Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

import engine
from desktop import theme
from desktop.model.actions import help_rows
from engine.registry import GameEntry

#: How steps are numbered, said once here and followed by the timeline, the status line and the panel.
STEP_NUMBERING = (
    "Step N is the decision made on the N-th board: step 1 is the first move, made on the starting "
    "board. The last board of a finished game is its final position."
)

_ARROWS = ("up", "down", "left", "right")
#: How the neutral key names that are not single characters are written for people.
_KEY_NAMES = {"space": "Space", "enter": "Enter", "backspace": "Backspace", "tab": "Tab", "escape": "Esc"}
_MONO_KEYS = f"font-family: 'DejaVu Sans Mono'; font-weight: 600; color: {theme.ACCENT_DARK};"
#: The narrowest the "how to play" column gets; longer lines wrap.
_HOW_WIDTH = 220


@dataclasses.dataclass(frozen=True, slots=True)
class GameHelp:
    """How one registered game is played, as the help lists it.

    Attributes:
        title: The game's name.
        keys: Its keys in short (``"Arrows · W A S D"``, ``"1–9"``); empty when it is played by mouse.
        how: The game's one-line controls, or why it cannot be played here.
        available: Whether the game can be played here.
        install: The command that installs what an unavailable game needs (may be empty).
    """

    title: str
    keys: str
    how: str
    available: bool = True
    install: str = ""


def keys_summary(keymap: Mapping[str, str]) -> str:
    """The keys of a key map in short, in the map's order: ``"Arrows · W A S D"``, ``"1–9"``."""
    # Chords ("right+x") are keys already listed, held together; the game's controls line names them.
    names = [n for n in dict.fromkeys(keymap) if n == "+" or "+" not in n]
    parts: list[str] = []
    if set(_ARROWS) <= set(names):
        parts.append("Arrows")
        names = [n for n in names if n not in _ARROWS]
    letters = [n.upper() for n in names if len(n) == 1 and n.isalpha()]
    digits = sorted(int(n) for n in names if len(n) == 1 and n.isdigit())
    others = [_KEY_NAMES.get(n, n.capitalize()) for n in names
              if not (len(n) == 1 and n.isalnum())]
    if letters:
        parts.append(" ".join(letters))
    if digits:
        parts.append(_digit_runs(digits))
    parts.extend(others)
    return " · ".join(parts)


def _digit_runs(digits: Sequence[int]) -> str:
    """``[1..9]`` -> ``"1–9"``; ``[1, 2, 5]`` -> ``"1 2 5"`` (runs of three or more are shortened)."""
    runs: list[list[int]] = []
    for d in digits:
        if runs and d == runs[-1][-1] + 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    return " ".join(f"{r[0]}–{r[-1]}" if len(r) >= 3 else " ".join(map(str, r)) for r in runs)


def game_help(entries: Iterable[GameEntry] | None = None) -> list[GameHelp]:
    """One row per registered game (default: :func:`engine.entries`): the playable games first."""
    rows: list[GameHelp] = []
    missing: list[GameHelp] = []
    for entry in engine.entries() if entries is None else entries:
        cls = entry.cls
        if entry.available and cls is not None:
            how = cls.controls or ("Use the keys shown" if cls.keymap else "Click the board")
            rows.append(GameHelp(cls.title, keys_summary(cls.keymap), how))
        else:
            missing.append(GameHelp(entry.title, "", f"Not available here: {entry.problem}",
                                    available=False, install=entry.install))
    return rows + missing


class ShortcutOverlay(QFrame):
    """The F1 help: a translucent layer over the window listing every key, app and game.

    Args:
        parent: The widget the overlay covers.
        games: The game rows (default: :func:`game_help` of the registered games).
    """

    def __init__(self, parent: QWidget, games: Sequence[GameHelp] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ShortcutOverlay")
        self.setStyleSheet(
            "QFrame#ShortcutOverlay { background: rgba(20, 24, 32, 120); }"
            f"QFrame#OverlayCard {{ background: {theme.PANEL}; border-radius: 12px; "
            f"border: 1px solid {theme.BORDER}; }}"
            "QScrollArea#GameHelp, QWidget#GameHelpBody { background: transparent; }"
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.games: list[GameHelp] = list(game_help() if games is None else games)

        card = QFrame(self)
        card.setObjectName("OverlayCard")
        title = QLabel("Keyboard shortcuts")
        title.setObjectName("HeaderTitle")
        # Both lists in one scrolling body: at any window size the card fits, and scrolls when the
        # lists are longer than the window is high.
        body = QWidget()
        body.setObjectName("GameHelpBody")
        columns = QHBoxLayout(body)
        columns.setContentsMargins(0, 0, 8, 0)
        columns.setSpacing(28)
        columns.addLayout(self._app_column(), 5)
        columns.addLayout(self._games_column(), 6)
        scroll = QScrollArea()
        scroll.setObjectName("GameHelp")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        hint = QLabel("Press F1 or Esc, or click anywhere, to close")
        hint.setObjectName("Muted")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(24, 20, 24, 18)
        layout.setSpacing(12)
        layout.addWidget(title)
        layout.addWidget(scroll, 1)
        layout.addWidget(hint)
        self.card = card
        self._scroll = scroll
        self._body = body
        self.hide()

    @staticmethod
    def _heading(text: str) -> QLabel:
        label = QLabel(text)
        label.setStyleSheet(f"font-weight: 600; color: {theme.TEXT};")
        return label

    def _app_column(self) -> QVBoxLayout:
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(6)
        grid.setColumnStretch(1, 1)
        row = 0
        group = ""
        # Every command with keys, from the one declaration menus and shortcuts are built from.
        for context, keys, what in help_rows():
            if context != group:
                group = context
                heading = QLabel(context)
                heading.setObjectName("Muted")
                heading.setStyleSheet("font-weight: 600;")
                grid.addWidget(heading, row, 0, 1, 2)
                row += 1
            key = QLabel(keys)
            key.setStyleSheet(_MONO_KEYS)
            text = QLabel(what)
            text.setWordWrap(True)
            grid.addWidget(key, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(text, row, 1, Qt.AlignmentFlag.AlignTop)
            row += 1
        column = QVBoxLayout()
        column.setSpacing(8)
        column.addWidget(self._heading("The app"))
        column.addLayout(grid)
        self.numbering = QLabel(STEP_NUMBERING)
        self.numbering.setObjectName("Muted")
        self.numbering.setWordWrap(True)
        column.addWidget(self.numbering)
        column.addStretch(1)
        return column

    def _games_column(self) -> QVBoxLayout:
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)
        grid.setColumnStretch(2, 1)
        for row, game in enumerate(self.games):
            name = QLabel(game.title)
            name.setObjectName("" if game.available else "Muted")
            key = QLabel(game.keys or ("mouse" if game.available else "—"))
            key.setStyleSheet(_MONO_KEYS if game.keys else f"color: {theme.MUTED};")
            key.setWordWrap(True)
            key.setMaximumWidth(200)
            how = QLabel(game.how)
            how.setWordWrap(True)
            how.setMinimumWidth(_HOW_WIDTH)
            if not game.available:
                how.setObjectName("Muted")
                if game.install:
                    how.setText(f"{html.escape(game.how)}<br>Install it with: "
                                f"<code>{html.escape(game.install)}</code>")
                    how.setTextFormat(Qt.TextFormat.RichText)
                    how.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            for col, widget in enumerate((name, key, how)):
                grid.addWidget(widget, row, col, Qt.AlignmentFlag.AlignTop)
        if not self.games:
            grid.addWidget(QLabel("No games are installed."), 0, 0)
        column = QVBoxLayout()
        column.setSpacing(8)
        column.addWidget(self._heading("Playing each game (the board must have focus)"))
        column.addLayout(grid)
        column.addStretch(1)
        return column

    def _fit(self) -> None:
        """Size the card to its content, at most the overlay's size less a margin, and centre it."""
        room_w, room_h = max(200, self.width() - 40), max(200, self.height() - 40)
        width = min(room_w, 1240)
        layout = self.card.layout()
        margins = layout.contentsMargins()
        inner = width - margins.left() - margins.right()
        body_h = self._body.heightForWidth(inner) if self._body.hasHeightForWidth() else -1
        if body_h < 0:
            body_h = self._body.sizeHint().height()
        chrome = self.card.sizeHint().height() - self._scroll.sizeHint().height()
        height = min(room_h, body_h + chrome + 4)
        self.card.resize(width, height)
        self.card.move((self.width() - width) // 2, max(20, (self.height() - height) // 2))

    def toggle(self) -> None:
        """Show the help over the whole parent, or hide it."""
        if self.isVisible():
            self.hide()
            return
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self._fit()
        self.raise_()
        self.show()
        self.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.activateWindow()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.hide()

    def event(self, event: QEvent) -> bool:
        # Esc is a window-wide shortcut (cancel the model call); while the help is open it closes it.
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_F1):
                event.accept()
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_F1):
            self.hide()
            event.accept()
            return
        super().keyPressEvent(event)


def about_box(parent: QWidget) -> QMessageBox:
    """The About PlayTrace box, opened (not executed): the caller keeps a reference until it closes."""
    box = QMessageBox(parent)
    box.setWindowTitle("About PlayTrace")
    box.setText(
        "<b>PlayTrace</b><br>Play games with people and language models, and inspect every "
        "model decision step by step: prompt, reasoning, answer, parsing, verification and cost."
    )
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()
    return box
