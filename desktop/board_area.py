"""The game area: the board, a person's action panel and the caption under them.

A person's panel (hold'em's bets, a Sudoku fill, Minesweeper's flags) goes beside the board or under
it, whichever leaves the board larger at the current size: a square board in a wide column keeps its
full height with the panel at its side, a wide board (a platformer) keeps its width with the panel
below. The caption keeps the height of two lines whatever it says, so the board never jumps as a
line comes or goes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from desktop.action_panel import ActionPanel
from desktop.board_view import BoardView

__all__ = ["BoardArea"]

#: The side panel's width: room for a row of three buttons or a labelled slider.
SIDE_WIDTH = 290
_SPACING = 8


class BoardArea(QWidget):
    """The board, the action panel (beside or under it) and a two-line caption."""

    def __init__(self, board: BoardView, panel: ActionPanel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.board = board
        self.panel = panel
        self.caption = QLabel("")
        self.caption.setObjectName("Muted")
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption.setWordWrap(True)
        self.row = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(_SPACING)
        self.row.addWidget(board, 1)
        self.row.addWidget(panel, 0)
        self._captions: list[tuple[QLabel, int]] = [(self.caption, 2)]
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self._layout.addLayout(self.row, 1)
        self._layout.addWidget(self.caption)
        panel.installEventFilter(self)
        self.fit_captions()

    @property
    def beside(self) -> bool:
        """Whether the panel stands beside the board (else under it)."""
        return self.row.direction() == QBoxLayout.Direction.LeftToRight

    def add_caption(self, label: QLabel, *, lines: int) -> None:
        """Add another caption line under the board, ``lines`` high whatever it says."""
        self._captions.append((label, lines))
        self._layout.addWidget(label)
        self.fit_captions()

    def fit_captions(self) -> None:
        # A fixed number of lines always: a caption that grows or shrinks would move the board.
        for label, lines in self._captions:
            label.setFixedHeight(lines * label.fontMetrics().lineSpacing() + 2)

    def _captions_height(self) -> int:
        shown = [label for label, _ in self._captions if label.isVisible()]
        return sum(label.height() + self._layout.spacing() for label in shown)

    def arrange(self) -> None:
        """Put the panel where the board stays largest (called on resize and when the panel changes)."""
        if self.panel.isHidden():
            return
        aspect = self.board.aspect
        width = self.width()
        height = self.height() - self._captions_height()
        below_h = self.panel.sizeHint().height()
        below = min(width, (height - below_h - _SPACING) * aspect)
        beside = min(width - SIDE_WIDTH - _SPACING, height * aspect)
        if beside >= below:
            self.row.setDirection(QBoxLayout.Direction.LeftToRight)
            self.panel.setFixedWidth(SIDE_WIDTH)
            self.panel.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Maximum)
            self.row.setAlignment(self.panel, Qt.AlignmentFlag.AlignVCenter)
            self.panel.set_columns(2)
        else:
            self.row.setDirection(QBoxLayout.Direction.TopToBottom)
            self.panel.setMinimumWidth(0)
            self.panel.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
            self.row.setAlignment(self.panel, Qt.AlignmentFlag(0))
            self.panel.set_columns(8)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.panel and event.type() == QEvent.Type.Show:
            self.arrange()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.arrange()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.fit_captions()
        self.arrange()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.fit_captions()  # zoom: two lines of the new size
