"""Sessions side by side in the app: *File → Compare sessions…* (Ctrl+Shift+C).

A picker lists the saved sessions (newest first; a game filter keeps one game's); the comparison shows
one column per session at the same step: the board (drawn by the game's renderer, the move played
there highlighted), who decided and how, the intermediate answers ✓/✗, the answer and reasoning. The
step bar scrubs all columns together and marks the first step where boards or actions diverge; below,
a diff of the prompts of the first two sessions at that step. The alignment is
:func:`sessions.compare.align`, exactly what ``playtrace compare`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QKeySequence, QPixmap, QShortcut, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from sessions.compare import Alignment, Side, align, prompt_diff

__all__ = ["CompareWindow", "SessionPicker", "open_compare"]

#: Windows open now (kept referenced while shown).
_OPEN: set[QWidget] = set()
BOARD_PX = 300


class SessionPicker(QDialog):
    """Choose two or more saved sessions of one game."""

    def __init__(self, root: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare sessions")
        self.resize(760, 520)
        from sessions import Catalogue

        self._items = [s for s in Catalogue(root).list() if not s.demo and not s.damaged]
        games = sorted({s.game for s in self._items if s.game})
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Game:"))
        self.game = QComboBox()
        self.game.addItems(games)
        self.game.currentTextChanged.connect(self._fill)
        top.addWidget(self.game, 1)
        layout.addLayout(top)
        layout.addWidget(QLabel("Select two or more sessions (Ctrl+click, Shift+click):"))
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.itemSelectionChanged.connect(self._update)
        layout.addWidget(self.list, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.compare = self.buttons.addButton("Compare", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._fill(self.game.currentText())

    def _fill(self, game: str) -> None:
        self.list.clear()
        for s in self._items:
            if s.game != game:
                continue
            players = " vs ".join(str(p) for p in (getattr(s, "players", None) or []))
            when = (s.created_at or "")[:16].replace("T", " ")
            item = QListWidgetItem(f"{when}   {players}   {s.steps} steps   {s.status}   {s.id}")
            item.setData(Qt.ItemDataRole.UserRole, str(s.path))
            self.list.addItem(item)
        self._update()

    def _update(self) -> None:
        self.compare.setEnabled(len(self.list.selectedItems()) >= 2)

    def paths(self) -> list[Path]:
        return [Path(i.data(Qt.ItemDataRole.UserRole)) for i in self.list.selectedItems()]


class _Column(QWidget):
    """One session's side at the current step."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        head = QLabel(title)
        head.setWordWrap(True)
        head.setStyleSheet("font-weight: 600;")
        layout.addWidget(head)
        self.board = QLabel()
        self.board.setFixedSize(BOARD_PX, BOARD_PX)
        self.board.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.board, 0, Qt.AlignmentFlag.AlignHCenter)
        self.decision = QLabel()
        self.decision.setWordWrap(True)
        self.decision.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.decision)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMinimumHeight(120)
        layout.addWidget(self.text, 1)
        self.setMinimumWidth(BOARD_PX + 16)

    def show_side(self, side: Side | None, picture: QPixmap | None, diverged: bool) -> None:
        if picture is not None:
            self.board.setPixmap(picture)
        else:
            self.board.clear()
        if side is None:
            self.decision.setText("<i>No decision at this step (the session ended).</i>")
            self.text.setPlainText("")
            return
        action = "(forfeit)" if side.action is None else _esc(side.action)
        how = {True: "parsed answer", False: f"fallback: {side.policy}", None: side.source or "bot"}[
            side.parsed
        ]
        marks = f" · intermediate answers ✓ {side.correct}/{side.asked}" if side.asked else ""
        colour = "#b91c1c" if diverged else "#111827"
        self.decision.setText(
            f"<span style='font-size:15pt;font-weight:700;color:{colour}'>{action}</span>"
            f"<br><span style='color:#4b5563'>{_esc(how)}{marks}</span>"
        )
        parts = []
        if side.answer:
            parts.append("Answer\n" + side.answer)
        if side.reasoning:
            parts.append("Reasoning\n" + side.reasoning)
        self.text.setPlainText("\n\n".join(parts) or "(no model text at this step)")
        self.text.verticalScrollBar().setValue(0)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class CompareWindow(QWidget):
    """The aligned view of ``sessions`` (loaded :class:`sessions.Session` objects of one game)."""

    def __init__(self, sessions: Sequence[Any], parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.sessions = list(sessions)
        self.alignment: Alignment = align(self.sessions)
        self.setWindowTitle(f"Compare · {self.alignment.game} · {len(self.sessions)} sessions")
        self.resize(1280, 800)
        import renderers

        self._renderer = renderers.get(self.alignment.game)
        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.prev = QPushButton("◀")
        self.prev.setToolTip("Previous step (←)")
        self.next = QPushButton("▶")
        self.next.setToolTip("Next step (→)")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, max(0, len(self.alignment.rows) - 1))
        self.position = QLabel()
        self.position.setMinimumWidth(120)
        self.jump = QPushButton("Go to first divergence")
        self.jump.setEnabled(self.alignment.first_divergence is not None)
        for w in (self.prev, self.slider, self.next, self.position, self.jump):
            bar.addWidget(w, 1 if w is self.slider else 0)
        layout.addLayout(bar)
        self.summary = QLabel(self._summary())
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        split = QSplitter(Qt.Orientation.Vertical)
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        self.columns = []
        for n, s in enumerate(self.sessions, 1):
            players = " vs ".join(
                str(p.get("spec")) for p in s.manifest.get("players") or [] if isinstance(p, dict)
            )
            col = _Column(f"{n}. {players} · seed {s.manifest.get('seed')}\n{s.id}")
            self.columns.append(col)
            row.addWidget(col)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(holder)
        split.addWidget(scroll)
        self.diff = QPlainTextEdit()
        self.diff.setReadOnly(True)
        split.addWidget(self.diff)
        split.setSizes([560, 160])
        layout.addWidget(split, 1)
        self.slider.valueChanged.connect(self.show_step)
        self.prev.clicked.connect(lambda: self.slider.setValue(self.slider.value() - 1))
        self.next.clicked.connect(lambda: self.slider.setValue(self.slider.value() + 1))
        self.jump.clicked.connect(self.go_to_divergence)
        QShortcut(QKeySequence(Qt.Key.Key_Left), self, lambda: self.slider.setValue(self.slider.value() - 1))
        QShortcut(QKeySequence(Qt.Key.Key_Right), self, lambda: self.slider.setValue(self.slider.value() + 1))
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close)
        self.show_step(0)

    def _summary(self) -> str:
        a = self.alignment
        text = f"{len(self.sessions)} sessions of {a.game}, aligned step by step. "
        if a.first_divergence is None:
            text += "They never diverge."
        else:
            text += f"First divergence: step {a.first_divergence + 1} (marked red)."
        if not a.same_start:
            text += " Note: they start from different boards (another seed or options)."
        return text

    def go_to_divergence(self) -> None:
        if self.alignment.first_divergence is not None:
            self.slider.setValue(self.alignment.first_divergence)

    def _picture(self, session: Any, k: int, side: Side | None) -> QPixmap | None:
        try:
            state = session.state_at(min(k, session.num_steps))
        except (IndexError, ValueError):
            return None
        highlight = () if side is None or side.action is None else (side.action,)
        image = self._renderer.render(state, BOARD_PX, BOARD_PX, highlight=highlight)
        return QPixmap.fromImage(image)

    def show_step(self, k: int) -> None:
        rows = self.alignment.rows
        if not rows:
            return
        k = max(0, min(k, len(rows) - 1))
        row = rows[k]
        first = self.alignment.first_divergence
        diverged = first is not None and k >= first
        self.position.setText(f"Step {k + 1} / {len(rows)}" + ("  ▲ diverged" if k == first else ""))
        for col, session, side in zip(self.columns, self.sessions, row, strict=True):
            col.show_side(side, self._picture(session, k, side), diverged)
        self._show_diff(row, k)

    def _show_diff(self, row: Sequence[Side | None], k: int) -> None:
        self.diff.clear()
        a, b = row[0], row[1]
        if a is None or b is None or not (a.prompt or b.prompt):
            self.diff.setPlainText(f"Prompts at step {k + 1}: not both sessions asked a model here.")
            return
        lines = prompt_diff(a.prompt, b.prompt, ("session 1", "session 2"))
        if not lines:
            self.diff.setPlainText(f"Prompts at step {k + 1}: the same in sessions 1 and 2.")
            return
        cursor = self.diff.textCursor()
        for line in [f"Prompts at step {k + 1}, session 1 (−) against session 2 (+):", *lines]:
            fmt = QTextCharFormat()
            if line.startswith("+") and not line.startswith("+++"):
                fmt.setForeground(QColor("#15803d"))
            elif line.startswith("-") and not line.startswith("---"):
                fmt.setForeground(QColor("#b91c1c"))
            cursor.insertText(line + "\n", fmt)
        self.diff.moveCursor(QTextCursor.MoveOperation.Start)


def open_compare(window: QWidget, root: Path | None = None) -> CompareWindow | None:
    """Ask for sessions (the sessions folder by default) and open their comparison."""
    from PySide6.QtWidgets import QMessageBox

    from sessions import SessionError, default_root, load_session

    picker = SessionPicker(root or default_root(), window)
    if picker.exec() != QDialog.DialogCode.Accepted:
        return None
    try:
        loaded = [load_session(p) for p in picker.paths()]
        view = CompareWindow(loaded)
    except (SessionError, ValueError) as exc:
        QMessageBox.warning(window, "Compare sessions", str(exc))
        return None
    _OPEN.add(view)
    view.destroyed.connect(lambda *_: _OPEN.discard(view))
    view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    view.show()
    return view
