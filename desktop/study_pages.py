"""The pages a study participant sees, one at a time: text pages (consent, instructions, the next
game, thanks), the participant's id, the list of participants to resume, a questionnaire, a break's
countdown, a game (the board, its controls line and its notice, nothing else) and the experimenter's
confirmation to leave.

Pages only show things and say what the person chose (signals); what happens next is decided by
:mod:`desktop.study_flow`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop import theme
from desktop.action_panel import ActionPanel
from desktop.board_view import BoardView
from engine.study import Item, Questionnaire

__all__ = [
    "BreakPage",
    "GamePage",
    "LeavePage",
    "ParticipantPage",
    "QuestionnairePage",
    "ResumePage",
    "TextPage",
    "clock",
]

#: The experimenter's way out of the locked flow (a confirmation follows).
LEAVE_KEYS = "Ctrl+Alt+Shift+Q"

#: The widest a column of text grows (lines longer than this are hard to read).
TEXT_WIDTH = 920

STYLESHEET = f"""
QWidget#StudyWindow {{ background: {theme.WINDOW}; }}
QLabel#StudyTitle {{ font-size: 20pt; font-weight: 600; color: {theme.TEXT}; }}
QLabel#StudyBody {{ font-size: 13pt; color: {theme.TEXT}; }}
QLabel#StudyItem {{ font-size: 13pt; font-weight: 600; color: {theme.TEXT}; }}
QLabel#StudyAnchor {{ font-size: 12pt; color: {theme.MUTED}; }}
QLabel#StudyFooter {{ font-size: 9pt; color: {theme.MUTED}; }}
QLabel#StudyBadge {{ font-size: 11pt; font-weight: 600; color: {theme.WARNING_FG};
                     background: {theme.WARNING_BG}; border: 1px solid #f0d48a; border-radius: 6px;
                     padding: 3px 10px; }}
QLabel#StudyClock {{ font-size: 14pt; font-weight: 600; color: {theme.TEXT}; }}
QLabel#StudyClockLow {{ font-size: 14pt; font-weight: 600; color: {theme.ERROR_FG}; }}
QLabel#StudyCaption {{ font-size: 13pt; color: {theme.TEXT}; }}
QLabel#StudyError {{ font-size: 11pt; color: {theme.ERROR_FG}; }}
QStackedWidget QPushButton {{ font-size: 12pt; padding: 8px 22px; }}
QRadioButton {{ font-size: 12pt; spacing: 4px; }}
QRadioButton::indicator {{ width: 22px; height: 22px; }}
QLineEdit, QPlainTextEdit {{ font-size: 13pt; }}
QListWidget {{ font-size: 12pt; }}
QListWidget::item {{ padding: 8px 10px; border-bottom: 1px solid {theme.BORDER}; }}
QListWidget::item:selected {{ background: {theme.ACCENT_SOFT}; color: {theme.TEXT}; }}
"""


def clock(seconds: float) -> str:
    """``m:ss`` for a countdown (never negative)."""
    s = max(0, int(seconds + 0.999))
    return f"{s // 60}:{s % 60:02d}"


def _label(text: str, name: str, *, wrap: bool = True) -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
    return label


def _button(text: str, primary: bool = False) -> QPushButton:
    button = QPushButton(text)
    if primary:
        button.setObjectName("Primary")
    button.setAutoDefault(False)
    return button


class _Page(QWidget):
    """A centred column of at most :data:`TEXT_WIDTH` pixels: title, body, buttons, footer."""

    def __init__(self, title: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(32, 24, 32, 16)
        outer.addStretch(1)
        self.column = QWidget()
        self.column.setMaximumWidth(TEXT_WIDTH)
        outer.addWidget(self.column, 100)
        outer.addStretch(1)
        self.body = QVBoxLayout(self.column)
        self.body.setContentsMargins(0, 0, 0, 0)
        self.body.setSpacing(16)
        self.title = _label(title, "StudyTitle")
        self.body.addWidget(self.title)
        self.buttons = QHBoxLayout()
        self.buttons.setSpacing(12)
        self.footer = _label("", "StudyFooter")
        self.footer.setVisible(False)

    def finish(self, *, stretch_before_buttons: bool = True) -> None:
        """Add the buttons row and the footer at the bottom (after the page's own widgets)."""
        if stretch_before_buttons:
            self.body.addStretch(1)
        self.body.addLayout(self.buttons)
        self.body.addWidget(self.footer)

    def set_footer(self, text: str) -> None:
        self.footer.setText(text)
        self.footer.setVisible(bool(text))


class TextPage(_Page):
    """A title, a text and one or two buttons (``sig_primary``, ``sig_secondary``)."""

    sig_primary = Signal()
    sig_secondary = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.text = _label("", "StudyBody")
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.badge = _label("", "StudyBadge", wrap=False)
        self.badge.setVisible(False)
        self.body.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignLeft)
        self.body.addWidget(self.text)
        self.secondary = _button("")
        self.primary = _button("", primary=True)
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.secondary)
        self.buttons.addWidget(self.primary)
        self.primary.clicked.connect(self.sig_primary.emit)
        self.secondary.clicked.connect(self.sig_secondary.emit)
        self.finish()

    def show_text(
        self, title: str, text: str, primary: str = "", secondary: str = "", *, badge: str = "",
        footer: str = "",
    ) -> None:
        """Fill the page; an empty button text hides that button."""
        self.title.setText(title)
        self.text.setText(text.strip())
        self.badge.setText(badge)
        self.badge.setVisible(bool(badge))
        self.primary.setText(primary)
        self.primary.setVisible(bool(primary))
        self.secondary.setText(secondary)
        self.secondary.setVisible(bool(secondary))
        self.set_footer(footer)


class ParticipantPage(_Page):
    """The experimenter gives the participant's pseudonym (a fresh one is filled in)."""

    sig_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Participant id (for the experimenter)", parent)
        self.body.addWidget(_label(
            "A pseudonym for this participant (no names). Keep the suggested one, or type the id from "
            "your participant list: letters, digits, '_' or '-'.", "StudyBody"))
        self.edit = QLineEdit()
        self.edit.setMaxLength(32)
        self.edit.setAccessibleName("Participant id")
        self.body.addWidget(self.edit)
        self.error = _label("", "StudyError")
        self.body.addWidget(self.error)
        self.go = _button("Continue", primary=True)
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.go)
        self.go.clicked.connect(lambda: self.sig_chosen.emit(self.edit.text().strip()))
        self.edit.returnPressed.connect(self.go.click)
        self.finish()

    def ask(self, suggestion: str, error: str = "") -> None:
        self.edit.setText(suggestion)
        self.error.setText(error)
        self.edit.setFocus()
        self.edit.selectAll()


class ResumePage(_Page):
    """Participants who have not finished: resume one, or start a new participant."""

    sig_resume = Signal(str)
    sig_new = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Continue a participant?", parent)
        self.body.addWidget(_label(
            "These participants have not finished the study. Resume one where they stopped (a game that "
            "was cut off is played again from its start), or start with a new participant.", "StudyBody"))
        self.list = QListWidget()
        self.list.setMinimumHeight(160)
        self.body.addWidget(self.list, 1)
        self.new = _button("New participant")
        self.resume = _button("Resume", primary=True)
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.new)
        self.buttons.addWidget(self.resume)
        self.new.clicked.connect(self.sig_new.emit)
        self.resume.clicked.connect(self._resume)
        self.list.itemDoubleClicked.connect(lambda _item: self._resume())
        self.list.currentRowChanged.connect(lambda row: self.resume.setEnabled(row >= 0))
        self.finish(stretch_before_buttons=False)

    def show_participants(self, rows: Sequence[tuple[str, str]]) -> None:
        """``rows``: (participant id, where they are) for each unfinished participant."""
        self.list.clear()
        for pid, where in rows:
            item = QListWidgetItem(f"{pid} — {where}")
            item.setData(Qt.ItemDataRole.UserRole, pid)
            self.list.addItem(item)
        self.list.setCurrentRow(0 if rows else -1)
        self.resume.setEnabled(bool(rows))

    def _resume(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.sig_resume.emit(str(item.data(Qt.ItemDataRole.UserRole)))


class _Likert(QWidget):
    """One Likert item: its points as radio buttons, numbered underneath, between the scale's anchors
    (or with one label under each point when the study gives as many anchors as points)."""

    def __init__(self, item: Item, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item = item
        self.group = QButtonGroup(self)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 4)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        per_point = len(item.anchors) == item.scale and item.scale > 2
        ends = (item.anchors[0], item.anchors[-1]) if item.anchors and not per_point else ("", "")
        left = _label(ends[0], "StudyAnchor")
        left.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        right = _label(ends[1], "StudyAnchor")
        right.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for w in (left, right):
            w.setFixedWidth(150 if item.scale <= 7 else 110)
        grid.addWidget(left, 0, 0)
        centre = Qt.AlignmentFlag.AlignHCenter
        for point in range(1, item.scale + 1):
            button = QRadioButton()
            button.setAccessibleName(f"{item.text}: {point} of {item.scale}")
            button.setToolTip(f"{point} of {item.scale}")
            self.group.addButton(button, point)
            grid.addWidget(button, 0, point, centre)
            number = _label(str(point), "StudyAnchor", wrap=False)
            number.setAlignment(centre)
            grid.addWidget(number, 1, point, centre)
            grid.setColumnMinimumWidth(point, 60 if item.scale <= 7 else 48)
            if per_point:
                under = _label(item.anchors[point - 1], "StudyAnchor")
                under.setAlignment(centre | Qt.AlignmentFlag.AlignTop)
                under.setFixedWidth(60 if item.scale <= 7 else 48)
                grid.addWidget(under, 2, point, centre)
        grid.addWidget(right, 0, item.scale + 1)
        grid.setColumnStretch(item.scale + 2, 1)

    def value(self) -> int | None:
        point = self.group.checkedId()
        return point if point > 0 else None


class QuestionnairePage(_Page):
    """A questionnaire's items (Likert scales and free text); Continue once every scale is answered."""

    sig_answered = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("A few questions", parent)
        self.intro = _label("", "StudyBody")
        self.body.addWidget(self.intro)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.body.addWidget(self.scroll, 1)
        self.go = _button("Continue", primary=True)
        self.hint = _label("", "StudyAnchor")
        self.buttons.addWidget(self.hint, 1)
        self.buttons.addWidget(self.go)
        self.go.clicked.connect(lambda: self.sig_answered.emit(self.answers()))
        self.finish(stretch_before_buttons=False)
        self.scales: dict[str, _Likert] = {}
        self.texts: dict[str, QPlainTextEdit] = {}

    def ask(self, questionnaire: Questionnaire, intro: str) -> None:
        self.intro.setText(intro)
        self.scales, self.texts = {}, {}
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(0, 0, 12, 0)
        column.setSpacing(10)
        for n, item in enumerate(questionnaire.items, 1):
            column.addWidget(_label(f"{n}. {item.text}", "StudyItem"))
            if item.kind == "likert":
                scale = _Likert(item)
                scale.group.idClicked.connect(lambda _id: self._update())
                self.scales[item.key] = scale
                column.addWidget(scale)
            else:
                edit = QPlainTextEdit()
                edit.setAccessibleName(item.text)
                edit.setPlaceholderText("Type your answer here (optional)")
                edit.setFixedHeight(90)
                edit.setTabChangesFocus(True)
                self.texts[item.key] = edit
                column.addWidget(edit)
            column.addSpacing(10)
        column.addStretch(1)
        self.scroll.setWidget(inner)
        self._update()

    def answers(self) -> dict[str, Any]:
        out: dict[str, Any] = {key: scale.value() for key, scale in self.scales.items()}
        out.update({key: edit.toPlainText().strip() for key, edit in self.texts.items()})
        return out

    def _update(self) -> None:
        missing = sum(1 for s in self.scales.values() if s.value() is None)
        self.go.setEnabled(missing == 0)
        self.hint.setText(f"{missing} scale{'s' if missing != 1 else ''} still to answer" if missing else "")


class BreakPage(_Page):
    """A break: a countdown, then Continue."""

    sig_done = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Take a short break", parent)
        self.body.addWidget(_label("Rest your eyes for a moment. The study goes on when the time is up.",
                                   "StudyBody"))
        self.countdown = _label("", "StudyTitle", wrap=False)
        self.countdown.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.body.addSpacing(24)
        self.body.addWidget(self.countdown)
        self.go = _button("Continue", primary=True)
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.go)
        self.go.clicked.connect(self.sig_done.emit)
        self.finish()

    def set_remaining(self, seconds: float) -> None:
        done = seconds <= 0
        self.countdown.setText("Ready when you are" if done else clock(seconds))
        self.go.setEnabled(done)


class GamePage(QWidget):
    """One game as the participant plays it: what the round is, the time left, the board, the game's
    own buttons, its controls line and notice, and Continue once the game is over."""

    sig_continue = Signal()
    sig_undo = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 14, 24, 14)
        layout.setSpacing(8)
        top = QHBoxLayout()
        top.setSpacing(14)
        self.title = _label("", "StudyTitle", wrap=False)
        self.badge = _label("", "StudyBadge", wrap=False)
        self.move_clock = _label("", "StudyClock", wrap=False)
        self.game_clock = _label("", "StudyClock", wrap=False)
        top.addWidget(self.title)
        top.addWidget(self.badge)
        top.addStretch(1)
        top.addWidget(self.move_clock)
        top.addSpacing(18)
        top.addWidget(self.game_clock)
        layout.addLayout(top)
        self.board = BoardView()
        layout.addWidget(self.board, 1)
        self.panel = ActionPanel()
        layout.addWidget(self.panel)
        self.caption = _label("", "StudyCaption")
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.caption)
        bottom = QHBoxLayout()
        self.undo = _button("Take back")
        self.go = _button("Continue", primary=True)
        bottom.addWidget(self.undo)
        bottom.addStretch(1)
        bottom.addWidget(self.go)
        layout.addLayout(bottom)
        self.undo.clicked.connect(self.sig_undo.emit)
        self.go.clicked.connect(self.sig_continue.emit)

    def begin(self, title: str, badge: str, *, undo: bool) -> None:
        self.title.setText(title)
        self.badge.setText(badge)
        self.badge.setVisible(bool(badge))
        self.undo.setVisible(undo)
        self.go.setVisible(False)
        self.caption.setText("")
        self.board.set_game(None)
        self.panel.set_panel(None)
        self.set_clocks(None, None)

    def set_clocks(self, move: float | None, game: float | None) -> None:
        """The time left for this move and this game (``None``: no limit, nothing shown)."""
        for label, left, what in ((self.move_clock, move, "This move"), (self.game_clock, game, "This game")):
            label.setVisible(left is not None)
            if left is None:
                continue
            name = "StudyClockLow" if left <= 10 else "StudyClock"
            if label.objectName() != name:
                label.setObjectName(name)
                label.style().unpolish(label)
                label.style().polish(label)
            label.setText(f"{what}: {clock(left)}")

    def ended(self, text: str) -> None:
        self.caption.setText(text)
        self.set_clocks(None, None)
        self.undo.setVisible(False)
        self.go.setVisible(True)
        self.go.setFocus()


class LeavePage(_Page):
    """The experimenter's confirmation before the flow closes."""

    sig_leave = Signal()
    sig_back = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("End this session?", parent)
        self.body.addWidget(_label(
            "For the experimenter. Everything done so far is saved. Running the study again on the same "
            "results folder offers to resume this participant where they stopped; a game that is cut off "
            "now is played again from its start.", "StudyBody"))
        self.back = _button("Return to the study")
        self.leave = _button("End session", primary=True)
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.back)
        self.buttons.addWidget(self.leave)
        self.back.clicked.connect(self.sig_back.emit)
        self.leave.clicked.connect(self.sig_leave.emit)
        self.finish()
