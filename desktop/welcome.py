"""The welcome card: what the game area shows when nothing is open."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop import theme


class WelcomeCard(QWidget):
    """A centred card offering the three ways to begin: a new game, a saved session, the demo.

    The buttons are public (``new_button``, ``open_button``, ``demo_button``); the window connects them.
    """

    def __init__(self, parent: QWidget | None = None, *, demo_tip: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("WelcomeArea")
        card = QFrame()
        card.setObjectName("WelcomeCard")
        card.setStyleSheet(
            f"QFrame#WelcomeCard {{ background: {theme.PANEL}; border: 1px solid {theme.BORDER}; "
            "border-radius: 12px; }"
        )
        card.setMaximumWidth(420)
        title = QLabel("Welcome to PlayTrace")
        title.setObjectName("HeaderTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text = QLabel("Play a game yourself, let a language model play, or look back at a saved session.")
        text.setObjectName("Muted")
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.new_button = QPushButton("New game (Ctrl+N)")
        self.new_button.setObjectName("Primary")
        self.open_button = QPushButton("Open session (Ctrl+O)")
        self.demo_button = QPushButton("Play the demo")
        self.demo_button.setToolTip(demo_tip or "Watch the simulated model play (offline, free)")
        inner = QVBoxLayout(card)
        inner.setContentsMargins(28, 24, 28, 24)
        inner.setSpacing(10)
        inner.addWidget(title)
        inner.addWidget(text)
        inner.addSpacing(6)
        for button in (self.new_button, self.open_button, self.demo_button):
            button.setMinimumHeight(32)
            inner.addWidget(button)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(card, 3)
        row.addStretch(1)
        outer.addLayout(row)
        outer.addStretch(1)
